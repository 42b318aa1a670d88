// Protects §10's operator accounts: op_ tokens e-mailed once, the role matrix on EVERY admin route (each route of the admin OpenAPI document called with each role, allowed vs 403 OPERATOR_ROLE_REQUIRED against the contract's rules), revocation within 2 s, and the audit actor taken from the credential.
import { beforeAll, describe, expect, it } from 'vitest';
import { admin, call, expectProblem, onboardPartner, platform, registerPartner, until, verifyEmailOf, waitForMail, type Answer } from './support/client.js';

type Role = 'viewer' | 'support' | 'finance' | 'admin';
const roles: Role[] = ['viewer', 'support', 'finance', 'admin'];
const operatorTokenPattern = /^Operator token: (op_[a-z0-9]{12}_[A-Za-z0-9]{32,})$/m;

/**
 * The contract's rules (§10), written here independently of the gateway's
 * table: every read is viewer; support reviews, suspends, manages keys and
 * secrets, retries deliveries and redrives dead letters; finance moves money;
 * everything else (plans, operators, tier and URL changes) is admin.
 */
function expectedRole(method: string, path: string): Role {
  if (method === 'get') return 'viewer';
  if (/\/wallet\/(topups|adjustments)$/.test(path)) return 'finance';
  if (method === 'post' && /^\/admin\/v1\/partners\/\{id\}\/(approve|reject|suspend|reinstate|keys|keys\/\{keyId\}\/revoke|webhook-secret\/rotate)$/.test(path)) return 'support';
  if (method === 'post' && /^\/admin\/v1\/(webhook-deliveries\/\{id\}\/retry|dead-letters\/redrive)$/.test(path)) return 'support';
  if (/^\/admin\/v1\/partners\/\{id\}\/webhook-endpoints(\/\{endpointId\}(\/(rotate-secret|recover|test))?)?$/.test(path)) return 'support';
  if (method === 'post' && path === '/admin/v1/reconciliation/run') return 'finance';
  return 'admin';
}

const allows = (role: Role, needed: Role) => role === 'admin' || needed === 'viewer' || role === needed;

/** Well-formed ids nobody owns: an allowed call reaches its handler and answers 404 (or 400 for an empty body), never a change. */
const sample: Record<string, string> = {
  id: 'ptn_01jzzzzzzzzzzzzzzzzzzzzzzz',
  keyId: 'key_01jzzzzzzzzzzzzzzzzzzzzzzz',
  iccid: '8999000000000000000001',
};
const idFor = (path: string) =>
  path.startsWith('/admin/v1/operators/')
    ? 'opr_01jzzzzzzzzzzzzzzzzzzzzzzz'
    : path.startsWith('/admin/v1/orders/')
      ? 'ord_01jzzzzzzzzzzzzzzzzzzzzzzz'
      : path.startsWith('/admin/v1/plans/')
        ? 'plan_01jzzzzzzzzzzzzzzzzzzzzzzz'
        : path.startsWith('/admin/v1/webhook-deliveries/')
          ? 'dlv_01jzzzzzzzzzzzzzzzzzzzzzzz'
          : sample.id!;

const tokens = new Map<Role, string>();
let routes: Array<{ method: string; path: string; url: string }> = [];

async function createOperator(role: Role, email = `op-${role}-${Date.now()}@example.test`): Promise<{ id: string; email: string; token: string }> {
  const created = await admin('/operators', { body: { email, name: `Operator ${role}`, role } });
  expect(created.status, created.text).toBe(201);
  expect(created.body).toMatchObject({ id: expect.stringMatching(/^opr_/), email, role, lastUsedAt: null, revokedAt: null });
  expect(JSON.stringify(created.body)).not.toMatch(/op_[a-z0-9]{12}_/);
  const [mail] = await waitForMail(email, 'Your operator account');
  return { id: created.body.id, email, token: operatorTokenPattern.exec(mail!.text)![1]! };
}

const as = (token: string, method: string, url: string, body?: unknown): Promise<Answer> =>
  call(platform.adminUrl, url, { method: method.toUpperCase(), headers: { authorization: `Bearer ${token}` }, ...(method === 'post' || method === 'patch' ? { body: body ?? {} } : {}) });

beforeAll(async () => {
  for (const role of roles) tokens.set(role, (await createOperator(role)).token);
  const doc = (await call(platform.adminUrl, '/openapi.json')).body;
  routes = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
    .filter(([path]) => path.startsWith('/admin/v1/'))
    .flatMap(([path, methods]) =>
      Object.keys(methods)
        .filter((method) => ['get', 'post', 'patch', 'put', 'delete'].includes(method))
        .map((method) => ({ method, path, url: path.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'id' ? idFor(path) : sample[name]!)) })),
    );
}, 120_000);

describe('the role matrix (§10)', () => {
  it('when every admin route is called with every role, then the roles the contract allows get past the check and the others get 403 OPERATOR_ROLE_REQUIRED naming the role', async () => {
    expect(routes.length).toBeGreaterThan(25);
    const wrong: string[] = [];
    for (const route of routes) {
      const needed = expectedRole(route.method, route.path);
      for (const role of roles) {
        const answer = await as(tokens.get(role)!, route.method, route.url);
        const refused = answer.status === 403 && answer.body?.code === 'OPERATOR_ROLE_REQUIRED';
        if (allows(role, needed) ? refused || answer.status === 401 || answer.status >= 500 : !refused) {
          wrong.push(`${route.method.toUpperCase()} ${route.path} as ${role} (needs ${needed}): ${answer.status} ${answer.body?.code ?? ''}`);
        } else if (refused) {
          expect(answer.body.detail).toContain(needed);
        }
      }
      // The break-glass ADMIN_TOKEN is admin.
      const breakGlass = await as(platform.adminToken, route.method, route.url);
      if (breakGlass.status === 403 || breakGlass.status === 401) wrong.push(`${route.method.toUpperCase()} ${route.path} with ADMIN_TOKEN: ${breakGlass.status}`);
    }
    expect(wrong).toEqual([]);
  }, 240_000);

  it('when an operator asks who it is, then it gets its id, e-mail and role; ADMIN_TOKEN is admin-token', async () => {
    const me = await as(tokens.get('finance')!, 'get', '/admin/v1/operators/me');
    expect(me.body).toMatchObject({ id: expect.stringMatching(/^opr_/), role: 'finance' });
    expect((await as(platform.adminToken, 'get', '/admin/v1/operators/me')).body).toEqual({ id: 'admin-token', email: null, role: 'admin' });
  });
});

describe('operator accounts (§10)', () => {
  it('when an operator acts, then the audit log names its id and e-mail, never the X-Operator header', async () => {
    const support = await createOperator('support');
    const { application, answer } = await registerPartner();
    await verifyEmailOf(application.email);
    const approved = await call(platform.adminUrl, `/admin/v1/partners/${answer.body.id}/approve`, {
      body: {},
      headers: { authorization: `Bearer ${support.token}`, 'x-operator': 'someone-else' },
    });
    expect(approved.status).toBe(200);
    const entry = await until(async () => {
      const log = await admin('/audit?limit=100');
      return log.body.data.find((e: { target: string; action: string }) => e.target === answer.body.id && e.action === 'partner.approved');
    }, 'the approval in the audit log');
    expect(entry).toMatchObject({ operator: support.id, operatorEmail: support.email, details: { note: 'someone-else' } });
    const listed = (await admin('/operators?limit=100')).body.data.find((o: { id: string }) => o.id === support.id);
    expect(listed.lastUsedAt).not.toBeNull();
  });

  it('when an operator is revoked, then its token answers 401 within 2 seconds; a role change applies as fast', async () => {
    const finance = await createOperator('finance');
    const partner = await onboardPartner();
    const topUp = (token: string) => call(platform.adminUrl, `/admin/v1/partners/${partner.id}/wallet/topups`, { body: { amount: 100, reference: `ROLE-${Date.now()}-${Math.random()}` }, headers: { authorization: `Bearer ${token}` } });
    expect((await topUp(finance.token)).status).toBe(201);

    expect((await admin(`/operators/${finance.id}`, { method: 'PATCH', body: { role: 'viewer' } })).body.role).toBe('viewer');
    await until(async () => ((await topUp(finance.token)).status === 403 ? true : undefined), 'the role change to apply', 2_000);

    const revoked = await admin(`/operators/${finance.id}/revoke`, { method: 'POST' });
    expect(revoked.body.revokedAt).not.toBeNull();
    await until(async () => ((await as(finance.token, 'get', '/admin/v1/partners')).status === 401 ? true : undefined), 'the revocation to apply', 2_000);
    expectProblem(await as(finance.token, 'get', '/admin/v1/partners'), 401, 'INVALID_TOKEN');
  });

  it('when a token is malformed or unknown, then 401 INVALID_TOKEN; none at all is 401 UNAUTHENTICATED', async () => {
    expectProblem(await as('op_aaaaaaaaaaaa_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'get', '/admin/v1/partners'), 401, 'INVALID_TOKEN');
    expectProblem(await as('op_nope', 'get', '/admin/v1/partners'), 401, 'INVALID_TOKEN');
    expectProblem(await call(platform.adminUrl, '/admin/v1/partners'), 401, 'UNAUTHENTICATED');
  });

  it('when the body is bad, then 400 naming the field', async () => {
    const answer = await admin('/operators', { body: { email: 'nope', name: '', role: 'root' } });
    expectProblem(answer, 400, 'VALIDATION_ERROR');
    expect(answer.body.errors.map((e: { path: string }) => e.path)).toEqual(expect.arrayContaining(['email', 'role']));
  });
});
