// Protects the SSRF guard's address classification: every private, loopback, link-local, shared and special range (IPv4, IPv6 and IPv4 hidden inside IPv6) is refused, and public addresses are not.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { forbiddenAddressReason } from '../src/delivery/addressPolicy.js';
import { pinnedLookup } from '../src/delivery/sendWebhook.js';

const refused: Array<[string, string]> = [
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['10.0.0.1', 'RFC 1918 private'],
  ['10.255.255.255', 'RFC 1918 private'],
  ['100.64.0.1', 'carrier-grade NAT'],
  ['100.127.255.254', 'carrier-grade NAT'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['169.254.0.1', 'link-local'],
  ['169.254.169.254', 'link-local'],
  ['172.16.0.1', 'RFC 1918 private'],
  ['172.31.255.255', 'RFC 1918 private'],
  ['192.0.0.8', 'IETF protocol assignments'],
  ['192.0.2.1', 'documentation'],
  ['192.168.0.1', 'RFC 1918 private'],
  ['192.168.255.255', 'RFC 1918 private'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.9', 'documentation'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'reserved'],
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['100::1', 'discard-only'],
  ['2001:db8::1', 'documentation'],
  ['fc00::1', 'unique-local'],
  ['fd00::1', 'unique-local'],
  ['fdff:ffff::1', 'unique-local'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf::1', 'link-local'],
  ['fec0::1', 'site-local'],
  ['ff02::1', 'multicast'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback'],
  ['::ffff:10.1.2.3', 'IPv4-mapped RFC 1918 private'],
  ['::ffff:169.254.169.254', 'IPv4-mapped link-local'],
  ['::ffff:192.168.1.1', 'IPv4-mapped RFC 1918 private'],
  ['::127.0.0.1', 'IPv4-compatible loopback'],
  ['64:ff9b::10.0.0.1', 'NAT64 RFC 1918 private'],
  ['64:ff9b::a9fe:a9fe', 'NAT64 link-local'],
  ['64:ff9b:1::1', 'local-use NAT64'],
];

const allowed = ['1.1.1.1', '8.8.8.8', '93.184.216.34', '100.63.255.255', '100.128.0.1', '172.15.255.255', '172.32.0.1', '169.253.255.255', '192.167.255.255', '223.255.255.255', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '::ffff:8.8.8.8', '64:ff9b::808:808', 'fbff::1', 'fec0::'.replace('fec0', 'fe7f')];

describe('forbiddenAddressReason', () => {
  it.each(refused)('when the address is %s, then it is refused as %s', (address, reason) => {
    expect(forbiddenAddressReason(address)).toBe(reason);
  });

  it.each(allowed)('when the address is the public %s, then it is allowed', (address) => {
    expect(forbiddenAddressReason(address)).toBeUndefined();
  });

  it('when the text is not an IP address, then it is refused rather than trusted', () => {
    expect(forbiddenAddressReason('localhost')).toBe('not an IP address');
  });
});

describe('pinnedLookup', () => {
  it('when a request to an unresolvable host name uses it, then Node connects to the pinned address (no second DNS answer is asked for)', async () => {
    const server = http.createServer((_, res) => res.end('pinned'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const body = await new Promise<string>((resolve, reject) => {
        const request = http.request(`http://never-resolves.invalid:${port}/`, { lookup: pinnedLookup({ address: '127.0.0.1', family: 4 }), agent: false }, (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve(text));
        });
        request.on('error', reject);
        request.end();
      });
      expect(body).toBe('pinned');
    } finally {
      server.close();
    }
  });
});
