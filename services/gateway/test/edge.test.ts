// Protects the gateway behind an ingress: TRUST_PROXY decides whose address `request.ip` is (per-address limits key on it), and kubelet probes and Prometheus scrapes stay out of the info log while real requests are logged.
import { z } from 'zod';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../src/config.js';
import { createApp } from '../src/http/createApp.js';

const secrets = {
  ADMIN_TOKEN: 'adm_0123456789abcdefghijklmnop',
  JWT_SECRET: Buffer.alloc(32, 7).toString('base64'),
  SUPPLIER_CALLBACK_SECRET: 'supplier-callback-secret-0123456789',
  NODE_ENV: 'production',
};

async function app(trustProxy: boolean | number | string[], lines: string[] = []) {
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  const created = await createApp({
    name: 'public',
    logger,
    title: 'test',
    description: 'test',
    readiness: [],
    isShuttingDown: () => false,
    securitySchemes: {},
    components: z.registry<{ id: string }>(),
    trustProxy,
  });
  created.get('/whoami', async (request) => ({ ip: request.ip }));
  return created;
}
const whoami = async (trustProxy: boolean | number | string[], forwardedFor: string) =>
  (await (await app(trustProxy)).inject({ url: '/whoami', remoteAddress: '10.1.2.3', headers: { 'x-forwarded-for': forwardedFor } })).json().ip as string;

describe('TRUST_PROXY', () => {
  it('when unset, then X-Forwarded-For is ignored and the peer is the client', async () => {
    expect(readConfig(secrets).TRUST_PROXY).toBe(false);
    expect(await whoami(false, '203.0.113.9')).toBe('10.1.2.3');
  });

  it('when 1 (one ingress in front), then the address the ingress appended is the client, whatever the client wrote before it', async () => {
    expect(readConfig({ ...secrets, TRUST_PROXY: '1' }).TRUST_PROXY).toBe(1);
    expect(await whoami(1, '198.51.100.66, 203.0.113.9')).toBe('203.0.113.9');
  });

  it('when proxy CIDRs are given, then only hops from them are skipped', async () => {
    expect(readConfig({ ...secrets, TRUST_PROXY: '10.0.0.0/8, fd00::/8' }).TRUST_PROXY).toEqual(['10.0.0.0/8', 'fd00::/8']);
    expect(await whoami(['10.0.0.0/8'], '198.51.100.66, 203.0.113.9')).toBe('203.0.113.9');
  });

  it('when the value is neither a flag, a count nor addresses, then the boot fails naming TRUST_PROXY', () => {
    expect(() => readConfig({ ...secrets, TRUST_PROXY: 'the ingress' })).toThrow(/TRUST_PROXY/);
  });
});

describe('request logs', () => {
  it('when probes and scrapes arrive, then no info line is written for them, while a real request gets one', async () => {
    const lines: string[] = [];
    const edge = await app(false, lines);
    for (const url of ['/healthz', '/readyz', '/metrics']) await edge.inject({ url });
    await edge.inject({ url: '/whoami' });
    const requests = lines.map((line) => JSON.parse(line) as { msg: string; route?: string }).filter((line) => line.msg === 'request');
    expect(requests.map((line) => line.route)).toEqual(['/whoami']);
  });
});
