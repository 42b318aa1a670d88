/**
 * Test mode in the two apps (contract §14): a switch people can see, kept
 * for the tab's session, and test data framed in orange so it is never
 * mistaken for live data. In test mode every read goes out with
 * `livemode=false`, which the API answers from the partner's test account;
 * live stays the default, so a fresh tab never shows test data.
 */
import type { ComponentChildren } from 'preact';
import { useCallback, useState } from 'preact/hooks';
import type { Mode } from './mode.js';

export { clientForMode, modeQuery, partnerOfAccount, type Mode } from './mode.js';

/** The mode kept in this tab's sessionStorage under `storageKey`; live when nothing (or nonsense) is stored. */
export function useStoredMode(storageKey: string): [Mode, (mode: Mode) => void] {
  const [mode, setMode] = useState<Mode>(() => (sessionStorage.getItem(storageKey) === 'test' ? 'test' : 'live'));
  const change = useCallback(
    (next: Mode) => {
      sessionStorage.setItem(storageKey, next);
      setMode(next);
    },
    [storageKey],
  );
  return [mode, change];
}

/**
 * The switch: a real checkbox with role=switch, so keyboards and screen
 * readers know its state; the label says what it does, not only the colour.
 */
export function ModeSwitch({ mode, onChange, id = 'test-mode-switch' }: { mode: Mode; onChange: (mode: Mode) => void; id?: string }) {
  return (
    <label class={`mode-switch${mode === 'test' ? ' mode-switch-on' : ''}`} for={id}>
      <input id={id} type="checkbox" role="switch" checked={mode === 'test'} onChange={(e) => onChange((e.currentTarget as HTMLInputElement).checked ? 'test' : 'live')} />
      <span>Test mode</span>
    </label>
  );
}

/** The orange banner over test data; `role=status` so a screen reader hears the switch take effect. */
export function TestModeBanner({ mode, children }: { mode: Mode; children?: ComponentChildren }) {
  if (mode === 'live') return null;
  return (
    <div class="test-banner" role="status" data-testid="test-mode-banner">
      <strong>TEST MODE</strong>
      <span>{children ?? 'You are looking at test data: no money, no real eSIMs.'}</span>
    </div>
  );
}

/** The class of the frame around a mode's pages (Shell's `frameClass`): the orange tint around test data, nothing around live data. */
export function frameClassOf(mode: Mode): string {
  return mode === 'test' ? 'mode-frame mode-frame-test' : 'mode-frame';
}

/** "Test" beside a row or heading of test data, for readers who do not see the colour. */
export function TestBadge({ livemode }: { livemode: boolean | undefined }) {
  return livemode === false ? <span class="badge badge-test">Test</span> : null;
}
