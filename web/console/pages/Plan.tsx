import { useState } from 'preact/hooks';
import { flash, useAction } from '../../shared/actions.js';
import { ApiError, type Client } from '../../shared/api.js';
import { formatDateTime } from '../../shared/format.js';
import { moneyExample, parseMoney, toDecimalString, minorDigits } from '../../shared/money.js';
import { navigate } from '../../shared/router.js';
import { useTitle } from '../../shared/shell.js';
import type { AdminPlan, Page } from '../../shared/types.js';
import { Badge, Loaded, TextField, useResource } from '../../shared/ui.js';
import { useCan } from '../role.js';

/** The form's text fields; prices in major units as typed. */
interface PlanForm {
  name: string;
  countries: string;
  region: string;
  dataMb: string;
  validityDays: string;
  floorPrice: string;
  retailPrice: string;
  supplierSku: string;
  supplierCost: string;
  /** What a traveller gets (§5) and the operator-only profile type. */
  unlimited: boolean;
  fairUseMb: string;
  throttleKbps: string;
  /** `FR:Orange:4G/5G, FR:SFR:4G` */
  networks: string;
  voice: boolean;
  sms: boolean;
  kycRequired: boolean;
  topUpable: boolean;
  activationPolicy: AdminPlan['activationPolicy'];
  profileType: string;
}

const empty: PlanForm = {
  name: '',
  countries: '',
  region: '',
  dataMb: '',
  validityDays: '',
  floorPrice: '',
  retailPrice: '',
  supplierSku: '',
  supplierCost: '',
  unlimited: false,
  fairUseMb: '',
  throttleKbps: '',
  networks: '',
  voice: false,
  sms: false,
  kycRequired: false,
  topUpable: true,
  activationPolicy: 'first_use',
  profileType: '',
};

const networksText = (plan: AdminPlan) => plan.networks.map((n) => `${n.country}:${n.operator}:${n.generations.join('/')}`).join(', ');

function networksOf(text: string) {
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const [country = '', operator = '', generations = ''] = entry.split(':').map((part) => part.trim());
      return { country: country.toUpperCase(), operator, generations: generations.split('/').map((g) => g.trim().toUpperCase()).filter(Boolean) };
    });
}

function formOf(plan: AdminPlan): PlanForm {
  const money = (minor: number) => toDecimalString(minor, minorDigits(plan.currency));
  return {
    name: plan.name,
    countries: plan.countries.join(', '),
    region: plan.region ?? '',
    dataMb: plan.dataMb === null ? '' : String(plan.dataMb),
    validityDays: String(plan.validityDays),
    floorPrice: money(plan.floorPrice),
    retailPrice: money(plan.retailPrice),
    supplierSku: plan.supplierSku,
    supplierCost: money(plan.supplierCost),
    unlimited: plan.unlimited,
    fairUseMb: plan.fairUseMb === null ? '' : String(plan.fairUseMb),
    throttleKbps: plan.throttleKbps === null ? '' : String(plan.throttleKbps),
    networks: networksText(plan),
    voice: plan.voice,
    sms: plan.sms,
    kycRequired: plan.kycRequired,
    topUpable: plan.topUpable,
    activationPolicy: plan.activationPolicy,
    profileType: plan.profileType ?? '',
  };
}

function invalid(errors: Array<{ path: string; message: string }>): ApiError {
  return new ApiError({ type: 'about:blank', title: 'Validation failed', status: 400, code: 'VALIDATION_ERROR', detail: 'Some fields need another look.', requestId: '', errors });
}

/** The body of POST/PATCH /admin/v1/plans from the form; money converted to minor units, exactly. */
function bodyOf(form: PlanForm, currency: string) {
  const errors: Array<{ path: string; message: string }> = [];
  const money = (field: 'floorPrice' | 'retailPrice' | 'supplierCost') => {
    const minor = parseMoney(form[field], currency);
    if (minor === null || minor <= 0) errors.push({ path: field, message: `must be a positive amount in ${currency}, e.g. ${moneyExample(currency)}` });
    return minor ?? 0;
  };
  const body = {
    name: form.name.trim(),
    countries: form.countries.split(/[\s,]+/).filter(Boolean).map((c) => c.toUpperCase()),
    region: form.region.trim() || null,
    dataMb: form.unlimited ? null : Number(form.dataMb),
    validityDays: Number(form.validityDays),
    floorPrice: money('floorPrice'),
    retailPrice: money('retailPrice'),
    supplierSku: form.supplierSku.trim(),
    supplierCost: money('supplierCost'),
    unlimited: form.unlimited,
    fairUseMb: form.unlimited ? Number(form.fairUseMb) : null,
    throttleKbps: form.unlimited ? Number(form.throttleKbps) : null,
    networks: networksOf(form.networks),
    voice: form.voice,
    sms: form.sms,
    kycRequired: form.kycRequired,
    topUpable: form.topUpable,
    activationPolicy: form.activationPolicy,
    profileType: form.profileType.trim() || null,
  };
  if (errors.length > 0) throw invalid(errors);
  return body;
}

/** Create a plan (`#/plans/new`) or edit one, and activate or deactivate it (§5). */
export function PlanPage({ api, planId }: { api: Client; planId: string | undefined }) {
  useTitle(planId ? `Plan ${planId}` : 'New plan', 'Operator console');
  // A new plan is priced in the deployment's one currency: the one the existing plans carry.
  const plan = useResource(
    async () => (planId ? api.get<AdminPlan>(`/plans/${encodeURIComponent(planId)}`) : { currency: (await api.get<Page<AdminPlan>>('/plans', { limit: 1 })).data[0]?.currency ?? 'USD' }),
    [planId],
  );
  return (
    <>
      <p>
        <a href="#/plans">← All plans</a>
      </p>
      <Loaded resource={plan}>{(loaded) => ('id' in loaded ? <PlanEditor key={loaded.id} api={api} plan={loaded} onSaved={plan.reload} /> : <PlanEditor api={api} currency={loaded.currency} />)}</Loaded>
    </>
  );
}

function PlanEditor({ api, plan, currency = plan?.currency ?? 'USD', onSaved }: { api: Client; plan?: AdminPlan; currency?: string; onSaved?: () => void }) {
  const [form, setForm] = useState<PlanForm>(plan ? formOf(plan) : empty);
  const { run, pending, feedback } = useAction();
  const can = useCan();
  const set = (field: keyof PlanForm) => (value: string) => setForm({ ...form, [field]: value });
  const flag = (field: 'unlimited' | 'voice' | 'sms' | 'kycRequired' | 'topUpable', label: string) => (
    <div class="field field-inline">
      <input id={`plan-${field}`} type="checkbox" checked={form[field]} onChange={(e) => setForm({ ...form, [field]: (e.currentTarget as HTMLInputElement).checked })} />
      <label for={`plan-${field}`}>{label}</label>
    </div>
  );
  const save = () => {
    let body: ReturnType<typeof bodyOf>;
    try {
      body = bodyOf(form, currency);
    } catch (error) {
      return run({ action: () => Promise.reject(error) });
    }
    return run({
      confirm: plan ? `Save the changes to ${plan.name}? Partners see new prices at once.` : `Create the plan ${body.name}? It is active, so partners can order it at once.`,
      confirmLabel: plan ? 'Save plan' : 'Create plan',
      action: () => (plan ? api.patch<AdminPlan>(`/plans/${encodeURIComponent(plan.id)}`, body) : api.post<AdminPlan>('/plans', body)),
      done: (saved) => {
        if (plan) {
          onSaved?.();
          return `Saved ${saved.name}.`;
        }
        flash(`Created ${saved.name}.`);
        navigate(`#/plans/${saved.id}`);
        return `Created ${saved.name}.`;
      },
    });
  };
  const setActive = (active: boolean) =>
    run({
      confirm: active ? `Activate ${plan!.name}? Partners can order it again.` : `Deactivate ${plan!.name}? It leaves partners' catalogs at once and new orders for it are refused.`,
      confirmLabel: active ? 'Activate' : 'Deactivate',
      action: () => api.patch<AdminPlan>(`/plans/${encodeURIComponent(plan!.id)}`, { active }),
      done: (saved) => {
        onSaved?.();
        return `${saved.name} is now ${saved.active ? 'active' : 'inactive'}.`;
      },
    });
  const money = `${currency}, e.g. ${moneyExample(currency)}`;
  return (
    <>
      <h1>
        {plan ? plan.name : 'New plan'} {plan && <Badge value={plan.active ? 'active' : 'inactive'} />}
      </h1>
      {plan && (
        <p class="muted">
          <code>{plan.id}</code> · updated {formatDateTime(plan.updatedAt)}
        </p>
      )}
      {feedback}
      <form
        class="card"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <div class="grid">
          <TextField id="plan-name" label="Name" required maxLength={200} value={form.name} onInput={set('name')} />
          <TextField id="plan-countries" label="Countries" required hint="ISO codes, e.g. FR, DE, IT" value={form.countries} onInput={set('countries')} />
          <TextField id="plan-region" label="Region (optional)" maxLength={100} hint="For regional plans, e.g. Europe" value={form.region} onInput={set('region')} />
          {form.unlimited ? (
            <>
              <TextField id="plan-fair-use" label="Fair use (MB at full speed)" type="number" min={1} required value={form.fairUseMb} onInput={set('fairUseMb')} />
              <TextField id="plan-throttle" label="Speed after fair use (kbit/s)" type="number" min={1} required value={form.throttleKbps} onInput={set('throttleKbps')} />
            </>
          ) : (
            <TextField id="plan-data" label="Data (MB)" type="number" min={1} required value={form.dataMb} onInput={set('dataMb')} />
          )}
          <TextField id="plan-validity" label="Validity (days)" type="number" min={1} required value={form.validityDays} onInput={set('validityDays')} />
          <TextField id="plan-floor" label="Floor price (standard tier)" inputMode="decimal" required hint={money} value={form.floorPrice} onInput={set('floorPrice')} />
          <TextField id="plan-retail" label="Retail price" inputMode="decimal" required hint={money} value={form.retailPrice} onInput={set('retailPrice')} />
          <TextField id="plan-sku" label="Supplier SKU" required maxLength={64} value={form.supplierSku} onInput={set('supplierSku')} />
          <TextField id="plan-cost" label="Supplier cost" inputMode="decimal" required hint={money} value={form.supplierCost} onInput={set('supplierCost')} />
          <TextField id="plan-networks" label="Networks" hint="country:operator:generations, e.g. FR:Orange:4G/5G, FR:SFR:4G" value={form.networks} onInput={set('networks')} />
          <div class="field">
            <label for="plan-activation">Validity starts</label>
            <select
              id="plan-activation"
              value={form.activationPolicy}
              onChange={(e) => setForm({ ...form, activationPolicy: (e.currentTarget as HTMLSelectElement).value as PlanForm['activationPolicy'] })}
            >
              <option value="first_use">at first use</option>
              <option value="on_install">at installation</option>
              <option value="on_purchase">at purchase</option>
            </select>
          </div>
          <TextField id="plan-profile-type" label="SM-DP+ profile type (optional)" maxLength={64} hint="Never shown to partners; empty for the SM-DP+'s default" value={form.profileType} onInput={set('profileType')} />
        </div>
        <div class="grid">
          {flag('unlimited', 'Unlimited data')}
          {flag('voice', 'Voice')}
          {flag('sms', 'SMS')}
          {flag('kycRequired', 'Identity check (KYC)')}
          {flag('topUpable', 'Can be topped up')}
        </div>
        <div class="actions" hidden={!can('admin')}>
          <button type="submit" disabled={pending}>
            {plan ? 'Save changes' : 'Create plan'}
          </button>
          {plan && (
            <button type="button" class={plan.active ? 'danger' : 'secondary'} disabled={pending} onClick={() => void setActive(!plan.active)}>
              {plan.active ? 'Deactivate' : 'Activate'}
            </button>
          )}
        </div>
      </form>
    </>
  );
}
