import { existsSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { AppError } from '@esim/errors';

/** The two web apps (web/ in the repository): the partner portal on the public listener, the operator console on the admin one. */
export type WebApp = 'portal' | 'console';

const titles: Record<WebApp, string> = { portal: 'partner portal', console: 'operator console' };

/** Paths under an app that e-mailed links open, answered with the app's page (it reads the path and the token). */
const landingPages: Record<WebApp, string[]> = { portal: ['verify-email', 'reset-password'], console: [] };

/**
 * Where `npm run build:web` (run by `npm install`) writes the apps. The
 * path is the same from src/ and from dist/, so the compiled gateway finds
 * them where the development one does.
 */
export const webDistDir = fileURLToPath(new URL('../../../../web/dist/', import.meta.url));

/**
 * The pages run only the bundle served beside them: no inline script or
 * style, no framing, and fetches only to this listener. Images may be
 * data: URLs because the order view carries the eSIM's QR code as one.
 */
export const webContentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Hashed file names change with their content, so they can be cached forever; everything else (index.html) is revalidated. */
const immutableAsset = `${sep}assets${sep}`;

/**
 * Serves one built single-page app under `/<app>/` (`/<app>` redirects
 * there). Only the listener that registers it serves it: the console is
 * on the admin listener alone, so the public one answers 404 for it. While
 * the app is not built, its page answers 503 saying how to build it; a
 * build made while the gateway runs is served from the next request on.
 */
export async function serveWebApp(app: FastifyInstance, name: WebApp, root = join(webDistDir, name)): Promise<void> {
  const prefix = `/${name}`;
  const built = () => existsSync(join(root, 'index.html'));
  if (!built()) app.log.warn({ root }, `the ${titles[name]} is not built; run npm run build:web`);
  // Encapsulated: reply.sendFile and the error handler below exist for these routes only.
  await app.register(async (scope) => {
    // The listener marks every answer no-store (apiHeaders.ts); the pages choose their own caching below,
    // so their hashed assets stay cacheable forever. An error here still answers no-store (sendProblem).
    scope.addHook('onRequest', (_request, reply, done) => {
      reply.removeHeader('cache-control');
      done();
    });
    await scope.register(fastifyStatic, {
      root,
      prefix: `${prefix}/`,
      index: false,
      cacheControl: false,
      // Dotfiles and directories are "no such page", like any other unknown path.
      dotfiles: 'ignore',
      setHeaders(res, path) {
        res.setHeader('cache-control', path.includes(immutableAsset) ? 'public, max-age=31536000, immutable' : 'no-cache');
        res.setHeader('content-security-policy', webContentSecurityPolicy);
        res.setHeader('x-content-type-options', 'nosniff');
        res.setHeader('referrer-policy', 'no-referrer');
        res.setHeader('x-frame-options', 'DENY');
      },
    });
    // The listeners ignore trailing slashes, so this one route answers both `/<app>` and `/<app>/`:
    // the first is sent to the second, so the page's relative links resolve under the app.
    scope.get(prefix, { schema: { hide: true } }, async (request, reply) => {
      const [path = '', query] = request.url.split('?');
      if (!path.endsWith('/')) return reply.redirect(`${prefix}/${query === undefined ? '' : `?${query}`}`, 301);
      if (!built()) throw new AppError('UNAVAILABLE', `The ${titles[name]} is not built on this server: run npm run build:web, then reload.`);
      return reply.sendFile('index.html');
    });
    // The pages the e-mails link to (§4: `…/verify-email?token=`, `…/reset-password?token=`) are the app's own page too.
    for (const landing of landingPages[name]) {
      scope.get(`${prefix}/${landing}`, { schema: { hide: true } }, async (_request, reply) => {
        if (!built()) throw new AppError('UNAVAILABLE', `The ${titles[name]} is not built on this server: run npm run build:web, then reload.`);
        return reply.sendFile('index.html');
      });
    }
    // What the file server refuses (a malformed path, a directory) is a missing page, never a 500.
    scope.setErrorHandler((error: { statusCode?: number }, request, reply) => {
      if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) return reply.callNotFound();
      throw error;
    });
  });
}
