import { useState } from 'preact/hooks';
import { createClient } from '../../shared/api.js';
import { useTitle } from '../../shared/shell.js';
import { Notice, ProblemAlert, TextField } from '../../shared/ui.js';
import { operatorPattern, sessionHeaders, type Session } from '../session.js';

/** Checks the token with one harmless read before keeping it, so a wrong token is said at once. */
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
      await createClient({ base: '/admin/v1', headers: () => sessionHeaders(session), onUnauthorized: () => {} }).get('/partners', { limit: 1 });
      onSignedIn(session);
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
          required
          pattern={operatorPattern}
          maxLength={100}
          hint="Recorded in the audit log with every change you make (plain ASCII letters, digits and punctuation)."
          value={operator}
          onInput={setOperator}
        />
        <TextField id="signin-token" label="Admin token" type="password" autocomplete="current-password" required value={token} onInput={setToken} />
        <button type="submit" disabled={pending}>
          {pending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </div>
  );
}
