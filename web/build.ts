/**
 * `npm run build:web` (also run by `npm install`): builds the partner
 * portal and the operator console into web/dist/portal and
 * web/dist/console, which the gateway serves. `-- --watch` rebuilds on
 * every change, for working on the apps against a running `npm start`.
 */
const watch = process.argv.includes('--watch');
// A production bundle whoever calls (the e2e suite runs with NODE_ENV=test, which would give the bigger development JSX runtime).
process.env.NODE_ENV = 'production';
const { build } = await import('vite');
const configFile = new URL('./vite.config.ts', import.meta.url).pathname;

for (const mode of ['portal', 'console']) {
  const startedAt = Date.now();
  await build({ configFile, mode, logLevel: watch ? 'info' : 'warn', build: watch ? { watch: {} } : {} });
  if (!watch) process.stdout.write(`web: built the ${mode} into web/dist/${mode} in ${((Date.now() - startedAt) / 1000).toFixed(1)}s\n`);
}
