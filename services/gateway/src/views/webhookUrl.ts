import { isIP } from 'node:net';
import { z } from 'zod';

function isPrivateAddress(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === 'localhost' || bare.endsWith('.localhost') || bare.endsWith('.local') || bare.endsWith('.internal')) return true;
  if (isIP(bare) === 4) {
    const [a = 0, b = 0] = bare.split('.').map(Number);
    return a === 10 || a === 127 || a === 0 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127);
  }
  if (isIP(bare) === 6) return bare === '::1' || bare === '::' || /^f[cd]/i.test(bare) || /^fe[89ab]/i.test(bare) || bare.startsWith('::ffff:');
  return false;
}

/**
 * §9: a webhook URL must be https and public, unless insecure URLs are
 * allowed (development). Names that resolve to private addresses are caught
 * again at delivery time by the webhooks service; here we reject what the
 * URL itself gives away. One parse, one message: the first rule it breaks.
 */
export function webhookUrlSchema(allowInsecure: boolean) {
  return z
    .string()
    .max(2048)
    .superRefine((value, ctx) => {
      const problem = webhookUrlProblem(value, allowInsecure);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });
}

function webhookUrlProblem(value: string, allowInsecure: boolean): string | undefined {
  const url = URL.parse(value);
  if (!url) return 'must be an absolute URL';
  const schemes = allowInsecure ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) return allowInsecure ? 'must be an http:// or https:// URL' : 'must be an https:// URL';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  if (!allowInsecure && isPrivateAddress(url.hostname)) return 'must point to a public address';
  return undefined;
}
