import { useState } from 'preact/hooks';
import { createClient } from '../../shared/api.js';
import { useTitle } from '../../shared/shell.js';
import { Notice, ProblemAlert, TextField } from '../../shared/ui.js';
import { operatorPattern, sessionHeaders, type Session } from '../session.js';

/** Checks the token by asking who it belongs to before keeping it, so a wrong token is said at once and the role is known. */
export function SignInPage({ message, onSignedIn }: { message: string | undefined; onSignedIn: (session: Session) => void }) {
  useTitle('Sign in', 'Operator console');
  const [token, setToken] = useState('');
  const [operator, setOperator] = useState('');
  const [error, setError] = useState<unknown>();
  const [pending, setPending] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const session = { token: token.trim(), operator: operator.trim() };
    setPending(true);
    setError(undefined);
    try {
      const me = await createClient({ base: '/admin/v1', headers: () => sessionHeaders(session), onUnauthorized: () => {} }).get<{
        id: string;
        email: string | null;
        role: 'viewer' | 'support' | 'finance' | 'admin';
      }>('/operators/me');
      onSignedIn({ ...session, id: me.id, email: me.email, role: me.role });
    } catch (failure) {
      setError(failure);
      setPending(false);
    }
  };

  return (
    <div class="narrow">
      <h1>Sign in</h1>
      {message && <Notice>{message}</Notice>}
      <ProblemAlert error={error} />
      <form class="card" onSubmit={submit}>
        <TextField
          id="signin-operator"
          label="Your name"
          autocomplete="name"
          pattern={operatorPattern}
          maxLength={100}
          hint="Optional: kept as a note beside your operator account in the audit log (plain ASCII letters, digits and punctuation)."
          value={operator}
          onInput={setOperator}
        />
        <TextField
          id="signin-token"
          label="Operator token"
          type="password"
          autocomplete="current-password"
          required
          hint="The op_… token e-mailed to you when your account was created (or the break-glass admin token)."
          value={token}
          onInput={setToken}
        />
        <button type="submit" disabled={pending}>
          {pending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </div>
  );
}
