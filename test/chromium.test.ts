// Protects `npm test` on a fresh clone: the browser tests' Chromium is found, installed the way .ci/run does when this machine allows it, or the run stops with one line naming the command, never three failed browser files later.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureChromium, type ChromiumHost } from '../scripts/chromium.js';

const root = join(import.meta.dirname, '..');

function host(overrides: Partial<ChromiumHost> & { present?: string[]; installs?: string[] } = {}) {
  const present = new Set(overrides.present ?? []);
  const installs: string[] = [];
  const fake: ChromiumHost = {
    env: {},
    isRoot: true,
    hasAptGet: true,
    exists: (path) => present.has(path),
    install: (command) => {
      installs.push(command);
      for (const path of overrides.installs ?? []) present.add(path);
      return (overrides.installs ?? []).length > 0;
    },
    ...overrides,
  };
  return { fake, installs };
}

describe('finding Chromium', () => {
  it('when /usr/bin/chromium exists, then it is used and nothing is installed', () => {
    const { fake, installs } = host({ present: ['/usr/bin/chromium'] });
    expect(ensureChromium(fake, '/tmp/log')).toEqual({ ok: true, path: '/usr/bin/chromium' });
    expect(installs).toEqual([]);
  });

  it('when CHROMIUM_PATH names an existing binary, then that one is used', () => {
    const { fake } = host({ env: { CHROMIUM_PATH: '/opt/chrome/chrome' }, present: ['/opt/chrome/chrome'] });
    expect(ensureChromium(fake, '/tmp/log')).toEqual({ ok: true, path: '/opt/chrome/chrome' });
  });

  it('when CHROMIUM_PATH names nothing, then one line says so and nothing is installed', () => {
    const { fake, installs } = host({ env: { CHROMIUM_PATH: '/nope' } });
    const check = ensureChromium(fake, '/tmp/log');
    expect(check).toMatchObject({ ok: false, message: expect.stringContaining('CHROMIUM_PATH=/nope') });
    expect(installs).toEqual([]);
  });
});

describe('installing it', () => {
  it('when missing and running as root with apt-get, then apt-get installs chromium with its output in the log', () => {
    const { fake, installs } = host({ installs: ['/usr/bin/chromium'] });
    expect(ensureChromium(fake, '/tmp/chromium.log')).toEqual({ ok: true, path: '/usr/bin/chromium', note: expect.stringContaining('/tmp/chromium.log') });
    expect(installs).toEqual([expect.stringMatching(/^apt-get update && .*apt-get install -y chromium$/)]);
  });

  it('when the install fails, then one line names the log and the command', () => {
    const { fake } = host();
    const check = ensureChromium(fake, '/tmp/chromium.log');
    expect(check).toMatchObject({ ok: false });
    expect(!check.ok && check.message).toMatch(/\/tmp\/chromium\.log.*apt-get install -y chromium/);
  });

  it.each([
    ['not root', { isRoot: false }],
    ['without apt-get', { hasAptGet: false }],
  ])('when %s, then nothing is installed and one line says the command to run', (_case, overrides) => {
    const { fake, installs } = host(overrides);
    const check = ensureChromium(fake, '/tmp/log');
    expect(check).toMatchObject({ ok: false, message: expect.stringContaining('sudo apt-get install -y chromium') });
    expect(!check.ok && check.message.split('\n')).toHaveLength(1);
    expect(installs).toEqual([]);
  });
});

describe('what the README and CI say', () => {
  it('when a reader follows the quick start, then it says a browser is needed and that npm test installs it', () => {
    const quickStart = readFileSync(join(root, 'README.md'), 'utf8').split('## Quick start')[1]!.split('\n## ')[0]!;
    expect(quickStart).toMatch(/Chromium/);
    expect(quickStart).toMatch(/npm test.*install/s);
  });

  it('when CI runs, then it installs chromium before npm test too', () => {
    const ci = readFileSync(join(root, '.ci', 'run'), 'utf8');
    expect(ci.indexOf('apt-get install -y chromium')).toBeGreaterThan(0);
    expect(ci.indexOf('apt-get install -y chromium')).toBeLessThan(ci.lastIndexOf('npm test'));
  });
});
