import { useState } from 'preact/hooks';
import { useAction } from '../../shared/actions.js';
import { ApiError, type Client } from '../../shared/api.js';
import { formatData, humanize } from '../../shared/format.js';
import type { Esim } from '../../shared/types.js';
import { TextField } from '../../shared/ui.js';

type Helper = 'install' | 'usage' | 'expire' | 'delete';

/** What each helper makes the simulated supplier report, and the webhook the partner then receives (§14). */
const helperText: Record<Helper, { button: string; event: string }> = {
  install: { button: 'Install on a device', event: 'esim.installed' },
  usage: { button: 'Add usage', event: 'esim.usage_threshold (at 80 % and 100 %)' },
  expire: { button: 'Expire the bundle', event: 'esim.bundle_expired' },
  delete: { button: 'Delete from the device', event: 'esim.deleted' },
};

/** At most this much use per press: a bundle is never larger than this in the catalog, and a typo stays a test. */
const maxAddMb = 1_048_576;

/**
 * The test helpers of a test eSIM (§14): each drives the simulator as a
 * traveller's phone and the network would, and answers the eSIM once the
 * resulting notifications are applied, so the page shows the new state at
 * once and the partner's test receiver gets the same webhooks as in live.
 */
export function TestHelpers({ api, esim, onChanged }: { api: Client; esim: Esim; onChanged: (esim: Esim) => void }) {
  const { run, pending, feedback } = useAction();
  const [addMb, setAddMb] = useState('100');
  const help = (helper: Helper, body?: unknown) =>
    run({
      confirm: helper === 'delete' ? 'Delete this test eSIM from its (simulated) device? It cannot be installed again.' : undefined,
      confirmLabel: 'Delete',
      action: () => api.post<Esim>(`/partner/me/test/esims/${encodeURIComponent(esim.iccid)}/${helper}`, body),
      done: (changed) => {
        onChanged(changed);
        return `${helperText[helper].button}: done. The eSIM is now ${humanize(changed.status).toLowerCase()}, ${formatData(changed.usage.dataUsedMb)} used; your test webhook URL gets ${helperText[helper].event}.`;
      },
    });
  const addUsage = () => {
    const megabytes = Number(addMb);
    if (!Number.isInteger(megabytes) || megabytes < 1 || megabytes > maxAddMb) {
      return run({
        action: () =>
          Promise.reject(new ApiError({ type: 'about:blank', title: 'Invalid usage', status: 400, code: 'VALIDATION_ERROR', detail: `Type a whole number of MB from 1 to ${maxAddMb}.`, requestId: '' })),
      });
    }
    return help('usage', { addMb: megabytes });
  };
  const finished = esim.status === 'deleted' || esim.status === 'cancelled';
  return (
    <section class="card" aria-labelledby="test-helpers-title">
      <h2 id="test-helpers-title">Test helpers</h2>
      <p class="muted">Play the traveller and the network for this test eSIM. Each press sends the webhooks a live eSIM would cause.</p>
      {feedback}
      {finished ? (
        <p>This test eSIM is {esim.status}: nothing more can happen to it.</p>
      ) : (
        <>
          <div class="actions">
            <button type="button" disabled={pending} onClick={() => void help('install')}>
              {helperText.install.button}
            </button>
            <button type="button" class="secondary" disabled={pending} onClick={() => void help('expire')}>
              {helperText.expire.button}
            </button>
            <button type="button" class="danger" disabled={pending} onClick={() => void help('delete')}>
              {helperText.delete.button}
            </button>
          </div>
          <form
            class="toolbar"
            onSubmit={(e) => {
              e.preventDefault();
              void addUsage();
            }}
          >
            <TextField id="test-add-mb" label="Data to use (MB)" type="number" min="1" max={String(maxAddMb)} step="1" required value={addMb} onInput={setAddMb} />
            <button type="submit" class="secondary" disabled={pending}>
              {helperText.usage.button}
            </button>
          </form>
        </>
      )}
    </section>
  );
}
