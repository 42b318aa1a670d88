// Protects §10's audit actor across services: a plan change (catalog), a top-up (wallet), an endpoint change (webhooks) and a reconciliation run (orders, through the gateway) made with an operator token are logged with that operator's id and e-mail from the credential, never the X-Operator header, which is kept as the entry's note.
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { admin, call, onboardPartner, platform, until, waitForMail, type Answer, type Onboarded } from './support/client.js';

const operatorTokenPattern = /^Operator token: (op_[a-z0-9]{12}_[A-Za-z0-9]{32,})$/m;
type Operator = { id: string; email: string; token: string };

async function createOperator(role: 'admin' | 'finance' | 'support'): Promise<Operator> {
  const email = `audit-${role}-${randomBytes(4).toString('hex')}@example.test`;
  const created = await admin('/operators', { body: { email, name: `Audit ${role}`, role } });
  expect(created.status, created.text).toBe(201);
  const [mail] = await waitForMail(email, 'Your operator account');
  return { id: created.body.id, email, token: operatorTokenPattern.exec(mail!.text)![1]! };
}

/** Calls the admin API with an operator's token and an X-Operator header naming somebody else. */
const as = (operator: Operator, method: string, path: string, body?: unknown): Promise<Answer> =>
  call(platform.adminUrl, `/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${operator.token}`, 'x-operator': 'someone-else' },
    ...(body === undefined ? {} : { body }),
  });

function auditEntry(action: string, target: string) {
  return until(async () => {
    const log = await admin('/audit?limit=100');
    return log.body.data.find((entry: { action: string; target: string }) => entry.action === action && entry.target === target);
  }, `${action} on ${target} in the audit log`);
}

let partner: Onboarded;
let operators: Record<'admin' | 'finance' | 'support', Operator>;

beforeAll(async () => {
  partner = await onboardPartner();
  operators = { admin: await createOperator('admin'), finance: await createOperator('finance'), support: await createOperator('support') };
});

describe('the audit actor of other services’ actions (§10)', () => {
  it('when an admin operator creates a plan (catalog), then the entry names the operator, and X-Operator is only the note', async () => {
    const tag = randomBytes(4).toString('hex').toUpperCase();
    const plan = { name: `Audit plan ${tag}`, countries: ['DE'], region: null, dataMb: 1024, validityDays: 7, floorPrice: 499, retailPrice: 999, supplierSku: `AUDIT-${tag}`, supplierCost: 300 };
    const created = await as(operators.admin, 'POST', '/plans', plan);
    expect(created.status, created.text).toBe(201);
    const entry = await auditEntry('plan.created', created.body.id);
    expect(entry).toMatchObject({ operator: operators.admin.id, operatorEmail: operators.admin.email, details: { note: 'someone-else' } });
  });

  it('when a finance operator tops up a wallet (wallet), then the entry names the operator, with the note and the top-up’s own text apart', async () => {
    const topUp = await as(operators.finance, 'POST', `/partners/${partner.id}/wallet/topups`, { amount: 500, reference: `AUDIT-${randomBytes(4).toString('hex')}`, note: 'March wire' });
    expect(topUp.status, topUp.text).toBe(201);
    const entry = await auditEntry('wallet.topup', partner.id);
    expect(entry).toMatchObject({ operator: operators.finance.id, operatorEmail: operators.finance.email, details: { note: 'someone-else', description: 'March wire' } });
  });

  it('when a support operator adds a webhook endpoint for a partner (webhooks), then the entry names the operator with the note', async () => {
    const added = await as(operators.support, 'POST', `/partners/${partner.id}/webhook-endpoints`, { url: 'http://127.0.0.1:9/audit', description: 'audit', enabled: false });
    expect(added.status, added.text).toBe(201);
    const entry = await auditEntry('webhook_endpoint.created', added.body.id);
    expect(entry).toMatchObject({ operator: operators.support.id, operatorEmail: operators.support.email, details: { note: 'someone-else', partnerId: partner.id } });
  });

  it('when a finance operator runs the reconciliation (it may release or refund money), then the run is audited with the operator', async () => {
    const run = await as(operators.finance, 'POST', '/reconciliation/run');
    expect(run.status, run.text).toBe(200);
    const entry = await auditEntry('reconciliation.run', run.body.id);
    expect(entry).toMatchObject({ operator: operators.finance.id, details: { note: 'someone-else', mismatches: run.body.mismatches } });
  });
});
