import type { FastifyInstance } from 'fastify';
import { errorCatalog, problemType, type ErrorCode } from '@esim/errors';

/**
 * The error codes table (#19) at /problems, one anchored row per code, so
 * that each problem's `type` (`/problems/insufficient-balance`) resolves to
 * its row and the reference page at /docs links every response there.
 */
const slug = (code: ErrorCode) => problemType(code).split('/').at(-1)!;
const escape = (text: string) => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

function page(): string {
  const rows = (Object.keys(errorCatalog) as ErrorCode[])
    .map((code) => `<tr id="${slug(code)}"><td><a href="#${slug(code)}"><code>${code}</code></a></td><td>${errorCatalog[code].status}</td><td>${escape(errorCatalog[code].title)}</td><td><code>${problemType(code)}</code></td></tr>`)
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Error codes</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ccc;padding:.4rem;text-align:left}tr:target{background:#fff4c2}</style>
</head><body>
<h1>Error codes</h1>
<p>Every error is an RFC 9457 problem (<code>application/problem+json</code>) with <code>type</code>, <code>title</code>, <code>status</code>, <code>code</code>, <code>detail</code> and <code>requestId</code>; validation errors add <code>errors[]</code>, one entry per failing field. Act on <code>code</code>: it is stable. The <a href="/docs">API reference</a> links each response here.</p>
<table><thead><tr><th>code</th><th>status</th><th>title</th><th>type</th></tr></thead><tbody>
${rows}
</tbody></table></body></html>`;
}

export function serveProblemsPage(app: FastifyInstance): void {
  const html = page();
  app.get('/problems', { schema: { hide: true } }, (_request, reply) => reply.type('text/html; charset=utf-8').send(html));
  // A problem's `type` is a URI reference: following it lands on its row.
  app.get('/problems/:slug', { schema: { hide: true } }, (request, reply) => {
    const wanted = (request.params as { slug: string }).slug;
    const known = (Object.keys(errorCatalog) as ErrorCode[]).some((code) => slug(code) === wanted);
    return reply.redirect(known ? `/problems#${wanted}` : '/problems', 302);
  });
}
