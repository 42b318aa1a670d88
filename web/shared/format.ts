/** How the apps show dates, data volumes and vocabularies. */

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateTime.format(date);
}

/** 5120 → "5 GB", 500 → "500 MB". */
export function formatData(megabytes: number): string {
  if (megabytes >= 1024 && megabytes % 1024 === 0) return `${megabytes / 1024} GB`;
  if (megabytes >= 1024) return `${(megabytes / 1024).toFixed(1)} GB`;
  return `${megabytes} MB`;
}

/** `order_debit` → "Order debit", `no_endpoint` → "No endpoint". */
export function humanize(value: string): string {
  const spaced = value.replaceAll('_', ' ');
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

const regionNames = new Intl.DisplayNames(undefined, { type: 'region' });

/** "FR" → "France". */
export function countryName(code: string): string {
  return regionNames.of(code) ?? code;
}

/** A plan's data: its allowance, or "Unlimited" with the fair use and the speed after it (§5). */
export function formatAllowance(plan: { dataMb: number | null; unlimited: boolean; fairUseMb: number | null; throttleKbps: number | null }): string {
  if (!plan.unlimited || plan.dataMb !== null) return formatData(plan.dataMb ?? 0);
  const fairUse = plan.fairUseMb === null ? '' : ` (${formatData(plan.fairUseMb)} at full speed, then ${plan.throttleKbps ?? 0} kbps)`;
  return `Unlimited${fairUse}`;
}
