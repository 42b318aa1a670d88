import type { ComponentChildren } from 'preact';
import { countryName, formatData, formatDateTime } from './format.js';
import type { Bundle, Esim } from './types.js';
import { Badge, DataTable } from './ui.js';

/** Whole percent of `part` in `whole`, 0–100 (a bundle's use never exceeds its data, but the bar must not overflow if it did). */
export function percentOf(part: number, whole: number): number {
  if (whole <= 0) return 0;
  return Math.min(100, Math.max(0, Math.round((part / whole) * 100)));
}

/** "1 GB used of 6 GB, 5 GB remaining": the bar's text equivalent, read aloud and printed under it. */
export function usageSentence(esim: Pick<Esim, 'usage'>): string {
  const { dataUsedMb, dataTotalMb, dataRemainingMb } = esim.usage;
  return `${formatData(dataUsedMb)} used of ${formatData(dataTotalMb)}, ${formatData(dataRemainingMb)} remaining`;
}

/**
 * The eSIM's use over its live bundles (§13 `usage`): a progress bar with
 * its values for assistive technology (role, min, max, now, text) and the
 * same sentence as visible text, so colour is never the only signal.
 */
export function UsageBar({ esim }: { esim: Pick<Esim, 'usage'> }) {
  const { dataUsedMb, dataTotalMb } = esim.usage;
  const percent = percentOf(dataUsedMb, dataTotalMb);
  const sentence = usageSentence(esim);
  if (dataTotalMb <= 0) return <p data-testid="usage-text">No data left: every bundle expired or was cancelled.</p>;
  const tone = percent >= 100 ? 'full' : percent >= 80 ? 'high' : 'ok';
  return (
    <div class="usage">
      <div
        class={`usage-bar usage-${tone}`}
        role="progressbar"
        aria-label="Data used"
        aria-valuemin={0}
        aria-valuemax={dataTotalMb}
        aria-valuenow={Math.min(dataUsedMb, dataTotalMb)}
        aria-valuetext={sentence}
      >
        {/* Set through the CSSOM (the CSP allows no inline style attribute). */}
        <div class="usage-fill" style={{ width: `${percent}%` }} />
      </div>
      <p class="usage-text" data-testid="usage-text">
        {sentence} ({percent} %)
      </p>
    </div>
  );
}

/** Where the eSIM works: its first plan's region, or its countries by name. */
export function coverage(esim: Pick<Esim, 'countries' | 'region'>): string {
  return esim.region ?? esim.countries.map(countryName).join(', ');
}

/** The eSIM's bundles, oldest first, as the supplier reported them (§13). */
export function BundlesTable({ esim, orderHref }: { esim: Pick<Esim, 'bundles'>; orderHref?: (orderId: string) => string }) {
  return (
    <DataTable
      caption="Bundles"
      rows={esim.bundles}
      rowKey={(b) => b.orderId}
      empty="No bundles."
      columns={[
        { label: 'Plan', render: (b: Bundle) => b.planName },
        { label: 'Order', render: (b: Bundle) => (orderHref ? <a href={orderHref(b.orderId)}>{b.orderId}</a> : <code>{b.orderId}</code>) },
        { label: 'Data', numeric: true, render: (b: Bundle) => formatData(b.dataMb) },
        { label: 'Used', numeric: true, render: (b: Bundle) => `${formatData(b.dataUsedMb)} (${percentOf(b.dataUsedMb, b.dataMb)} %)` },
        { label: 'Status', render: (b: Bundle) => <Badge value={b.status} /> },
        { label: 'Activated', render: (b: Bundle) => formatDateTime(b.activatedAt) },
        { label: 'Expires', render: (b: Bundle) => formatDateTime(b.expiresAt) },
      ]}
    />
  );
}

/** Status, coverage and use of one eSIM, then its bundles: the part the portal and the console share. */
export function EsimState({ esim, orderHref, children }: { esim: Esim; orderHref?: (orderId: string) => string; children?: ComponentChildren }) {
  return (
    <section class="card" aria-labelledby="esim-state-title">
      <h2 id="esim-state-title">
        Status and use <Badge value={esim.status} />
        {esim.suspended ? <Badge value="suspended" /> : null}
      </h2>
      <dl class="facts">
        <dt>ICCID</dt>
        <dd>
          <code>{esim.iccid}</code>
        </dd>
        <dt>Coverage</dt>
        <dd>{coverage(esim)}</dd>
        <dt>Use updated</dt>
        <dd>{formatDateTime(esim.usage.updatedAt)}</dd>
        <dt>Device EID</dt>
        <dd>{esim.eid ? <code>{esim.eid}</code> : 'not reported yet'}</dd>
        <dt>Last failed install</dt>
        <dd>{lastErrorText(esim)}</dd>
        <dt>Data</dt>
        <dd>{esim.suspended ? 'suspended (a lost or stolen device)' : esim.status === 'deleted' ? 'the profile was deleted from the device' : 'on'}</dd>
      </dl>
      <h3>Data</h3>
      <UsageBar esim={esim} />
      {children}
      <h3>Bundles</h3>
      <BundlesTable esim={esim} orderHref={orderHref} />
    </section>
  );
}

/** What the SM-DP+ last reported failing (§13 `lastError`), in one line; '—' when nothing failed. */
export function lastErrorText(esim: Pick<Esim, 'lastError'>): string {
  const error = esim.lastError;
  if (!error) return '—';
  const step = ({ 2: 'confirmation', 3: 'download', 4: 'installation' } as Record<number, string>)[error.notificationPoint] ?? `point ${error.notificationPoint}`;
  return `${step} failed ${formatDateTime(error.at)}${error.reasonCode ? ` (${error.reasonCode})` : ''}${error.message ? `: ${error.message}` : ''}`;
}
