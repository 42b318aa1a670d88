import { useEffect, useState } from 'preact/hooks';
import type { Client } from '../../shared/api.js';
import { useTitle } from '../../shared/shell.js';
import type { Partner } from '../../shared/types.js';
import { Loading, Notice, ProblemAlert, TextField } from '../../shared/ui.js';

/** The page an e-mailed link opens (§4): `/portal/verify-email?token=…` or `/portal/reset-password?token=…`. */
export function accountLink(): { page: 'verify-email' | 'reset-password'; token: string } | undefined {
  const page = window.location.pathname.split('/').pop();
  const token = new URLSearchParams(window.location.search).get('token') ?? '';
  return page === 'verify-email' || page === 'reset-password' ? { page, token } : undefined;
}

/** The portal's start page, with the token dropped from the address bar's history. */
const portalHome = () => window.location.pathname.replace(/[^/]*$/, '');

/** Follows the verification link: the address is proved once, and the application goes to review. */
export function VerifyEmailPage({ api, token }: { api: Client; token: string }) {
  useTitle('Confirm your e-mail', 'Partner portal');
  const [verified, setVerified] = useState<Partner | undefined>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    api.post<Partner>('/partner/verify-email', { token }).then(setVerified, setError);
  }, [api, token]);
  return (
    <div class="narrow">
      <h1>Confirm your e-mail</h1>
      {!verified && !error && <Loading what="Confirming your address" />}
      {verified && <Notice>Thank you: {verified.email} is confirmed. An operator now reviews your application; we will e-mail you the outcome.</Notice>}
      {error !== undefined && (
        <>
          <ProblemAlert error={error} />
          <ResendVerification api={api} />
        </>
      )}
      <p>
        <a href={`${portalHome()}#/`}>Log in</a> to follow your application.
      </p>
    </div>
  );
}

function ResendVerification({ api }: { api: Client }) {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const [error, setError] = useState<unknown>();
  const submit = async (event: Event) => {
    event.preventDefault();
    try {
      await api.post('/partner/verify-email/resend', { email });
      setSent(true);
    } catch (failure) {
      setError(failure);
    }
  };
  if (sent) return <Notice>If {email} has an application waiting for confirmation, a new link is on its way.</Notice>;
  return (
    <form class="card" onSubmit={submit}>
      <ProblemAlert error={error} />
      <TextField id="resend-email" label="E-mail" type="email" autocomplete="email" required maxLength={254} value={email} onInput={setEmail} />
      <button type="submit">Send a new link</button>
    </form>
  );
}

/** "Forgot your password?": always the same answer, whoever asks (no enumeration). */
export function ForgotPasswordPage({ api }: { api: Client }) {
  useTitle('Forgot your password', 'Partner portal');
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const [error, setError] = useState<unknown>();
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    try {
      await api.post('/partner/password-reset', { email });
      setSent(true);
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <div class="narrow">
      <h1>Forgot your password</h1>
      {sent ? (
        <Notice>If {email} belongs to an account, a link to choose a new password is on its way. It works once, within 30 minutes.</Notice>
      ) : (
        <form class="card" onSubmit={submit}>
          <ProblemAlert error={error} />
          <TextField id="forgot-email" label="E-mail" type="email" autocomplete="username" required maxLength={254} value={email} onInput={setEmail} />
          <button type="submit">Send me a link</button>
        </form>
      )}
      <p>
        <a href="#/">Back to log in</a>
      </p>
    </div>
  );
}

/** Follows the reset link: a new password, after which every older session is signed out. */
export function ResetPasswordPage({ api, token }: { api: Client; token: string }) {
  useTitle('Choose a new password', 'Partner portal');
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>();
  const submit = async (event: Event) => {
    event.preventDefault();
    setPending(true);
    setError(undefined);
    try {
      await api.post('/partner/password-reset/confirm', { token, password });
      setDone(true);
    } catch (failure) {
      setError(failure);
    } finally {
      setPending(false);
    }
  };
  return (
    <div class="narrow">
      <h1>Choose a new password</h1>
      {done ? (
        <Notice>Your password is changed, and every session signed in before is signed out.</Notice>
      ) : (
        <form class="card" onSubmit={submit}>
          <ProblemAlert error={error} />
          <TextField
            id="reset-password"
            label="New password"
            type="password"
            autocomplete="new-password"
            required
            minLength={12}
            maxLength={128}
            hint="12 to 128 characters."
            value={password}
            onInput={setPassword}
          />
          <button type="submit" disabled={pending}>
            {pending ? 'Saving…' : 'Change password'}
          </button>
        </form>
      )}
      <p>
        <a href={`${portalHome()}#/`}>Log in</a>
      </p>
    </div>
  );
}
