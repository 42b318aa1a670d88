import { fileURLToPath } from 'node:url';
import { defaultClientConditions, defineConfig } from 'vite';

/** The API each app talks to, for `npm run dev:portal` / `dev:console` against a running `npm start`. */
const devApi = {
  portal: { '/api/': 'http://127.0.0.1:8080' },
  console: { '/admin/': 'http://127.0.0.1:8081' },
} as const;

/**
 * One configuration, two apps: `--mode portal` or `--mode console`. Each
 * app is built on its own (web/dist/<app>, served under /<app>/), so the
 * public listener never carries a byte of the console.
 */
export default defineConfig(({ mode }) => {
  if (mode !== 'portal' && mode !== 'console') throw new Error(`build with --mode portal or --mode console, not ${mode}`);
  return {
    root: fileURLToPath(new URL(`./${mode}`, import.meta.url)),
    base: `/${mode}/`,
    publicDir: false,
    // Workspace packages (@esim/vocabulary) export their TypeScript source under `development`.
    resolve: { conditions: ['development', ...defaultClientConditions] },
    oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
    server: { proxy: devApi[mode] },
    build: {
      outDir: fileURLToPath(new URL(`./dist/${mode}`, import.meta.url)),
      emptyOutDir: true,
      target: 'es2022',
      // The strict Content-Security-Policy allows no inline script or data: asset.
      modulePreload: { polyfill: false },
      assetsInlineLimit: 0,
      reportCompressedSize: true,
    },
  };
});
