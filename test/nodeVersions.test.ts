// Protects one honest statement of the supported Node versions: package.json's engines, the README and the image's Node agree, and the Node running the tests is inside the range (CI runs the floor).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;

type Version = [number, number, number];
const parse = (text: string): Version => text.replace(/^v/, '').split('.').map(Number) as Version;
const compare = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** The two forms the range uses: `^x.y.z` (same major, at least x.y.z) and `>=x.y.z`, joined by `||`. */
function satisfies(version: string, range: string): boolean {
  const v = parse(version);
  return range.split('||').some((part) => {
    const [, op, bound] = /^\s*(\^|>=)(\d+\.\d+\.\d+)\s*$/.exec(part) ?? [];
    if (!op || !bound) throw new Error(`engines part "${part}" is not ^x.y.z or >=x.y.z`);
    const b = parse(bound);
    return op === '>=' ? compare(v, b) >= 0 : v[0] === b[0] && compare(v, b) >= 0;
  });
}

describe('supported Node versions', () => {
  it('when the engines range is read, then it has the forms this test understands and the floor is 20.19', () => {
    expect(engines).toBe('^20.19.0 || >=22.12.0');
    expect(satisfies('20.18.3', engines)).toBe(false);
    expect(satisfies('22.11.0', engines)).toBe(false);
    expect(satisfies('20.19.0', engines)).toBe(true);
  });

  it('when the README states the range, then it is the engines range, stated in its own section, and no other Node promise remains', () => {
    const readme = read('README.md');
    const section = readme.split('\n## Node versions\n')[1]?.split('\n## ')[0] ?? '';
    expect(section).toContain(`\`${engines}\``);
    expect(section).toMatch(/end-of-life/);
    expect(readme).not.toMatch(/Node 20\.11/);
  });

  it('when the image is built, then its Node major is inside the range and the README names it', () => {
    const image = /^ARG NODE_IMAGE=node:(\d+)-/m.exec(read('Dockerfile'))?.[1];
    expect(image).toBeDefined();
    expect(satisfies(`${image}.0.0`, engines)).toBe(true);
    expect(read('README.md')).toContain(`node:${image}-bookworm-slim`);
  });

  it('when the tests run, then they run on a Node inside the range', () => {
    expect(satisfies(process.version, engines), process.version).toBe(true);
  });
});
