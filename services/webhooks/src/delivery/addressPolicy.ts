import { isIP } from 'node:net';

/**
 * Which resolved addresses a webhook may never reach when insecure URLs are
 * not allowed (contract §9: no SSRF into the cluster). Svix's list, plus the
 * ranges an IPv6 address can smuggle an IPv4 one through (IPv4-mapped,
 * IPv4-compatible, NAT64). Pure functions over bytes, so every range has a
 * unit test.
 */

interface Range {
  /** Network bytes (4 for IPv4, 16 for IPv6) and prefix length in bits. */
  network: number[];
  bits: number;
  label: string;
}

const v4 = (cidr: string, label: string): Range => {
  const [address, bits] = cidr.split('/');
  return { network: parseIPv4(address!)!, bits: Number(bits), label };
};
const v6 = (cidr: string, label: string): Range => {
  const [address, bits] = cidr.split('/');
  return { network: parseIPv6(address!)!, bits: Number(bits), label };
};

const ipv4Ranges: Range[] = [
  v4('0.0.0.0/8', 'unspecified'),
  v4('10.0.0.0/8', 'RFC 1918 private'),
  v4('100.64.0.0/10', 'carrier-grade NAT'),
  v4('127.0.0.0/8', 'loopback'),
  v4('169.254.0.0/16', 'link-local'),
  v4('172.16.0.0/12', 'RFC 1918 private'),
  v4('192.0.0.0/24', 'IETF protocol assignments'),
  v4('192.0.2.0/24', 'documentation'),
  v4('192.168.0.0/16', 'RFC 1918 private'),
  v4('198.18.0.0/15', 'benchmarking'),
  v4('198.51.100.0/24', 'documentation'),
  v4('203.0.113.0/24', 'documentation'),
  v4('224.0.0.0/4', 'multicast'),
  v4('240.0.0.0/4', 'reserved'),
];

const ipv6Ranges: Range[] = [
  v6('::/128', 'unspecified'),
  v6('::1/128', 'loopback'),
  v6('100::/64', 'discard-only'),
  v6('2001:db8::/32', 'documentation'),
  v6('fc00::/7', 'unique-local'),
  v6('fe80::/10', 'link-local'),
  v6('fec0::/10', 'site-local'),
  v6('ff00::/8', 'multicast'),
];

/** IPv6 prefixes whose last 32 bits are an IPv4 address, checked as that address. */
const embeddingIPv4: Range[] = [v6('::ffff:0:0/96', 'IPv4-mapped'), v6('::/96', 'IPv4-compatible'), v6('64:ff9b::/96', 'NAT64')];

/** Why `address` (an IP literal) must not be reached, or undefined when it is a public address. */
export function forbiddenAddressReason(address: string): string | undefined {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return match(parseIPv4(bare)!, ipv4Ranges);
  if (family !== 6) return 'not an IP address';
  const bytes = parseIPv6(bare)!;
  const direct = match(bytes, ipv6Ranges);
  if (direct) return direct;
  for (const range of embeddingIPv4) {
    if (!inRange(bytes, range)) continue;
    const inner = match(bytes.slice(12), ipv4Ranges);
    if (inner) return `${range.label} ${inner}`;
  }
  // 64:ff9b:1::/48 is NAT64 for local use only (RFC 8215): never public.
  if (inRange(bytes, v6('64:ff9b:1::/48', ''))) return 'local-use NAT64';
  return undefined;
}

function match(bytes: number[], ranges: Range[]): string | undefined {
  return ranges.find((range) => inRange(bytes, range))?.label;
}

function inRange(bytes: number[], range: Range): boolean {
  if (bytes.length !== range.network.length) return false;
  for (let bit = 0; bit < range.bits; bit += 8) {
    const index = bit / 8;
    const take = Math.min(8, range.bits - bit);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((bytes[index]! & mask) !== (range.network[index]! & mask)) return false;
  }
  return true;
}

function parseIPv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((part) => !/^\d{1,3}$/.test(part) || Number(part) > 255)) return undefined;
  return parts.map(Number);
}

/** 16 bytes of an IPv6 literal, `::` and a trailing dotted quad included (isIP has vetted the syntax). */
function parseIPv6(text: string): number[] | undefined {
  // A trailing dotted quad (::ffff:127.0.0.1) is two groups written in decimal.
  const withoutQuad = text.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_, a, b, c, d) =>
    [((Number(a) << 8) | Number(b)).toString(16), ((Number(c) << 8) | Number(d)).toString(16)].join(':'),
  );
  const [left, right, extra] = withoutQuad.split('::');
  if (extra !== undefined) return undefined;
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const leftGroups = parse(left);
  const rightGroups = parse(right);
  const zeros = right === undefined ? 0 : 8 - leftGroups.length - rightGroups.length;
  if (zeros < 0) return undefined;
  const groups = [...leftGroups, ...new Array<number>(zeros).fill(0), ...rightGroups];
  if (groups.length !== 8 || groups.some((group) => Number.isNaN(group) || group < 0 || group > 0xffff)) return undefined;
  return groups.flatMap((group) => [group >> 8, group & 0xff]);
}
