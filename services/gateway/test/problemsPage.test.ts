// /problems (#19): the error table every problem `type` and every documented response points at.
import Fastify from 'fastify';
import { expect, it } from 'vitest';
import { errorCodes } from '@esim/errors';
import { serveProblemsPage } from '../src/http/problemsPage.js';

it('when /problems is read, then each code has an anchored row, and a problem type URI redirects to its row', async () => {
  const app = Fastify();
  serveProblemsPage(app);
  const page = await app.inject('/problems');
  expect(page.headers['content-type']).toMatch(/^text\/html/);
  for (const code of errorCodes) expect(page.body).toContain(`id="${code.toLowerCase().replaceAll('_', '-')}"`);
  const typed = await app.inject('/problems/insufficient-balance');
  expect({ status: typed.statusCode, location: typed.headers.location }).toEqual({ status: 302, location: '/problems#insufficient-balance' });
  expect((await app.inject('/problems/no-such-thing')).headers.location).toBe('/problems');
  await app.close();
});
