import { useState } from 'preact/hooks';
import type { Client } from '../../shared/api.js';
import { useTitle } from '../../shared/shell.js';
import type { Partner } from '../../shared/types.js';
import { Notice, ProblemAlert, TextField } from '../../shared/ui.js';

/** POST /partner/register: the application an operator reviews (§4). */
export function RegisterPage({ api }: { api: Client }) {
  useTitle('Apply', 'Partner portal');
  const [form, setForm] = useState({ name: '', company: '', email: '', password: '', webhookUrl: '' });
  const [error, setError] = useState<unknown>();
  const [applied, setApplied] = useState<Partner | undefined>();
  const [pending, setPending] = useState(false);
  const set = (field: keyof typeof form) => (value: string) => setForm({ ...form, [field]: value });

  const submit = async (event: Event) => {
    event.preventDefault();
    setPending(true);
    setError(undefined);
    try {
      const { webhookUrl, ...rest } = form;
      setApplied(await api.post<Partner>('/partner/register', webhookUrl.trim() ? { ...rest, webhookUrl: webhookUrl.trim() } : rest));
    } catch (failure) {
      setError(failure);
    } finally {
      setPending(false);
    }
  };

  if (applied) {
    return (
      <div class="narrow">
        <h1>Application received</h1>
        <Notice>
          Thank you, {applied.name}. We sent a confirmation to {applied.email}: open its link to confirm the address, so an operator can review your
          application. Once it is approved, your API key and webhook signing secret arrive by e-mail.
        </Notice>
        <p>
          <a href="#/">Log in</a> to follow your application.
        </p>
      </div>
    );
  }
  return (
    <div class="narrow">
      <h1>Apply for API access</h1>
      <ProblemAlert error={error} />
      <form class="card" onSubmit={submit}>
        <TextField id="apply-name" label="Your name" autocomplete="name" required maxLength={200} value={form.name} onInput={set('name')} />
        <TextField id="apply-company" label="Company" autocomplete="organization" required maxLength={200} value={form.company} onInput={set('company')} />
        <TextField id="apply-email" label="E-mail" type="email" autocomplete="email" required maxLength={254} value={form.email} onInput={set('email')} />
        <TextField
          id="apply-password"
          label="Password"
          type="password"
          autocomplete="new-password"
          required
          minLength={12}
          maxLength={128}
          hint="12 to 128 characters."
          value={form.password}
          onInput={set('password')}
        />
        <TextField
          id="apply-webhook"
          label="Webhook URL (optional)"
          type="url"
          hint="Where we POST order and wallet events. You can set it later."
          value={form.webhookUrl}
          onInput={set('webhookUrl')}
        />
        <button type="submit" disabled={pending}>
          {pending ? 'Sending…' : 'Apply'}
        </button>
      </form>
      <p>
        Already applied? <a href="#/">Log in</a>.
      </p>
    </div>
  );
}
