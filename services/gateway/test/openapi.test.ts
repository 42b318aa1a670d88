// The OpenAPI documents as a partner's tooling reads them (#19): Redocly CLI's recommended ruleset finds no problem at all
// (error or warning), every operation is named and exemplified, and paging parameters are the integers of §3.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readServedDocuments, type ServedDocuments } from '../../../scripts/sdk/servedDocuments.js';

const run = promisify(execFile);
const redocly = join(dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin/cli.js');
const methods = ['get', 'put', 'post', 'delete', 'patch'];

let docs: ServedDocuments;
const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));

beforeAll(async () => {
  docs = await readServedDocuments();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function operations(doc: any): [string, any][] {
  return Object.entries<any>(doc.paths).flatMap(([path, item]) => methods.filter((m) => item[m]).map((m): [string, any] => [`${m.toUpperCase()} ${path}`, item[m]]));
}

describe.each(['partner', 'admin'] as const)('the %s document', (which) => {
  it('when linted with Redocly’s recommended rules, then there is no error and no warning', async () => {
    const file = join(dir, `${which}.json`);
    writeFileSync(file, JSON.stringify(docs[which]));
    const { stdout } = await run(process.execPath, [redocly, 'lint', file, '--extends=recommended', '--format=json'], {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error: { stdout: string }) => ({ stdout: error.stdout }));
    const report = JSON.parse(stdout.slice(stdout.indexOf('{')));
    const problems = report.problems.map((p: any) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer}`);
    expect(problems).toEqual([]);
  });

  it('when read, then every operation has a unique operationId and an example on its body and each response', () => {
    const ids = operations(docs[which]).map(([, op]) => op.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const missing = operations(docs[which]).flatMap(([name, op]) => [
      ...Object.entries<any>(op.requestBody?.content ?? {}).filter(([, m]) => m.example === undefined).map(() => `${name} request`),
      ...Object.entries<any>(op.responses).flatMap(([status, r]) =>
        Object.values<any>(r.content ?? {}).filter((m) => m.example === undefined).map(() => `${name} ${status}`),
      ),
    ]);
    expect(missing).toEqual([]);
  });

  it('when read, then every page and limit is an integer with §3’s bounds and defaults', () => {
    const paging = operations(docs[which]).flatMap(([, op]) => (op.parameters ?? []).filter((p: any) => p.in === 'query' && ['page', 'limit'].includes(p.name)));
    expect(paging.length).toBeGreaterThan(3);
    for (const p of paging) {
      expect(p.schema).toMatchObject({ type: 'integer', minimum: 1 });
      if (p.name === 'limit') expect(p.schema.maximum).toBe(100);
    }
  });
});

it('when the partner document is read, then register and login are explicitly public, it names its server and licence, and the order routes keep their names', () => {
  const doc = docs.partner;
  expect(doc.paths['/api/v1/partner/register'].post.security).toEqual([]);
  expect(doc.paths['/api/v1/partner/login'].post.security).toEqual([]);
  expect(doc.servers.length).toBeGreaterThan(0);
  expect(doc.info.license.name).toBeTruthy();
  expect(doc.paths['/api/v1/partner/orders'].post.operationId).toBe('createOrder');
  expect(doc.paths['/api/v1/partner/orders/{orderId}'].get.operationId).toBe('getOrder');
});

describe('the reference page’s examples', () => {
  it('when the partner document is read, then every operation has a curl and an SDK sample, also in the description Swagger UI renders', () => {
    for (const [name, op] of operations(docs.partner)) {
      expect(op['x-codeSamples'].map((s: any) => s.label), name).toEqual(['curl', '@esim/sdk']);
      expect(op.description, name).toContain('```sh\ncurl -X');
    }
    const create = docs.partner.paths['/api/v1/partner/orders'].post['x-codeSamples'];
    expect(create[0].source).toContain('curl -X POST "$ESIM_URL/api/v1/partner/orders"');
    expect(create[0].source).toContain('Authorization: Bearer $ESIM_API_KEY');
    expect(create[1].source).toContain('await esim.orders.create({');
    expect(docs.partner.paths['/api/v1/partner/register'].post['x-codeSamples'][0].source).not.toContain('Authorization');
  });

  it('when the admin document is read, then operations have curl samples and the esim-admin command where one exists', () => {
    const approve = docs.admin.paths['/admin/v1/partners/{id}/approve'].post['x-codeSamples'];
    expect(approve.map((s: any) => s.source)).toEqual([
      'curl -X POST "$ADMIN_URL/admin/v1/partners/ptn_01jd4m8x2q7v5c3b9n6k0w1y2z/approve" \\\n  -H "Authorization: Bearer $ADMIN_TOKEN" \\\n  -H \'Content-Type: application/json\' \\\n  -d \'{"tier":"standard"}\'',
      'esim-admin applications approve ptn_01jd4m8x2q7v5c3b9n6k0w1y2z --tier premium',
    ]);
    for (const [name, op] of operations(docs.admin)) expect(op['x-codeSamples'][0].label, name).toBe('curl');
  });

  it('when a problem response is read, then its description links each of its codes in the error table', () => {
    const order = docs.partner.paths['/api/v1/partner/orders'].post.responses;
    // The HTTP layer names the codes first (edgeProblems.ts), then the toolkit's links to the table.
    expect(order['402'].description).toBe('Problem (RFC 9457); code INSUFFICIENT_BALANCE. Payment Required: [INSUFFICIENT_BALANCE](/problems#insufficient-balance)');
    expect(order['409'].description).toContain('[REQUEST_IN_PROGRESS](/problems#request-in-progress)');
    expect(order['402'].content['application/problem+json'].example.code).toBe('INSUFFICIENT_BALANCE');
  });
});
