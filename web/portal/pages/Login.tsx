import { useState } from 'preact/hooks';
import type { Client } from '../../shared/api.js';
import { useTitle } from '../../shared/shell.js';
import type { LoginAnswer } from '../../shared/types.js';
import { Notice, ProblemAlert, TextField } from '../../shared/ui.js';

export function LoginPage({ api, message, onLoggedIn }: { api: Client; message: string | undefined; onLoggedIn: (token: string, expiresIn: number) => void }) {
  useTitle('Log in', 'Partner portal');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>();
  const [pending, setPending] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setPending(true);
    setError(undefined);
    try {
      const answer = await api.post<LoginAnswer>('/partner/login', { email, password });
      onLoggedIn(answer.token, answer.expiresIn);
    } catch (failure) {
      setError(failure);
      setPending(false);
    }
  };

  return (
    <div class="narrow">
      <h1>Log in</h1>
      {message && <Notice>{message}</Notice>}
      <ProblemAlert error={error} />
      <form class="card" onSubmit={submit}>
        <TextField id="login-email" label="E-mail" type="email" autocomplete="username" required value={email} onInput={setEmail} />
        <TextField id="login-password" label="Password" type="password" autocomplete="current-password" required value={password} onInput={setPassword} />
        <button type="submit" disabled={pending}>
          {pending ? 'Logging in…' : 'Log in'}
        </button>
      </form>
      <p>
        <a href="#/forgot-password">Forgot your password?</a>
      </p>
      <p>
        No account yet? <a href="#/register">Apply for API access</a>.
      </p>
    </div>
  );
}
