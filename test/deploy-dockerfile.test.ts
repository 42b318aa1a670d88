// Protects the one image every service runs from: base, user, compiled command, no TypeScript loader, and what the build context carries.
import { describe, it, expect } from 'vitest';
import { productionNodeOptions } from '../scripts/deploy/nodeOptions.js';
import { services } from '../scripts/launcher/services.js';
import { runAsUser, devStartCommand, productionStartCommand, readText } from './support/deployFiles.js';

const dockerfile = readText('Dockerfile');
/** The stages by name (`FROM … AS name`); the last, unnamed one is the image that runs. */
const stages = dockerfile.split(/^(?=FROM )/m).slice(1);
const stageNamed = (name: string) => stages.find((stage) => new RegExp(`^FROM \\S+ AS ${name}$`, 'm').test(stage)) ?? '';
const finalStage = stages.at(-1) ?? '';
const rootPackage = JSON.parse(readText('package.json')) as { scripts?: Record<string, string>; dependencies?: Record<string, string>; devDependencies?: Record<string, string> };

describe('Dockerfile', () => {
  it('when the image is built, then it is Node 24 slim, works in /app and runs as uid 10001', () => {
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:24-bookworm-slim$/m);
    expect(finalStage).toMatch(/^FROM \$\{NODE_IMAGE\}$/m);
    expect(finalStage).toMatch(/^WORKDIR \/app$/m);
    expect(finalStage).toMatch(/^ARG SERVICE=/m);
    expect(finalStage).toMatch(new RegExp(`^USER ${runAsUser}(:${runAsUser})?$`, 'm'));
  });

  it('when the image starts a service, then it runs the compiled service with the compiled telemetry preload', () => {
    expect(finalStage).toContain(`cd \\"services/$SERVICE\\" && exec ${productionStartCommand}`);
    expect(finalStage).toContain('test -f \\"services/$SERVICE/dist/main.js\\"');
  });

  it('when a service runs in the image, then its V8 heap is the one the benchmarks measured (old generation within the pod limit, 16 MiB semi-spaces)', () => {
    expect(finalStage).toMatch(new RegExp(`^\\s*NODE_OPTIONS="${productionNodeOptions.join(' ')}" \\\\$`, 'm'));
  });

  it('when the image is assembled, then the code is compiled in a build stage and only production dependencies reach the final one', () => {
    expect(stageNamed('build')).toMatch(/^RUN npm ci /m);
    expect(stageNamed('build')).toMatch(/^RUN npm run build/m);
    expect(stageNamed('install')).toContain('npm ci --omit=dev');
    expect(finalStage).toContain('COPY --from=install /app/ /app/');
    expect(finalStage).toContain('COPY --from=build /out/ /app/');
    expect(finalStage).not.toMatch(/tsx|typescript|npm ci/);
  });

  it('when the image is built, then the web apps the gateway serves are built and shipped, and VERSION becomes service.version', () => {
    expect(stageNamed('build')).toContain('npm run build:web');
    expect(stageNamed('build')).toMatch(/packages services web\/dist \| tar -x -C \/out/);
    expect(finalStage).toMatch(/^ARG VERSION=/m);
    expect(finalStage).toContain('SERVICE_VERSION=${VERSION}');
  });

  it('when the compiled files are copied, then sources, tests and build leftovers stay in the build stage', () => {
    for (const excluded of ['node_modules', "'packages/*/src'", "'services/*/src'", "'packages/*/test'", "'services/*/test'", "'*.tsbuildinfo'"]) {
      expect(stageNamed('build'), excluded).toContain(`--exclude=${excluded}`);
    }
  });

  it('when dev dependencies are omitted from the image, then nothing that runs there needs tsx', () => {
    expect(rootPackage.dependencies?.tsx).toBeUndefined();
    expect(rootPackage.devDependencies?.tsx).toBeDefined();
  });

  it('when a service runs from sources, then its own npm start and the launcher run it the same way', () => {
    const supervisor = readText('scripts/launcher/supervisor.ts');
    expect(supervisor).toContain(`[${devStartCommand.split(' ').slice(1).map((arg) => `'${arg}'`).join(', ')}]`);
    for (const entry of services) {
      const pkg = JSON.parse(readText(`services/${entry.name}/package.json`)) as { scripts?: Record<string, string> };
      expect(pkg.scripts?.start, entry.name).toBe(devStartCommand);
    }
  });

  it('when the build context is sent, then node_modules, var/ and dist/ stay out and the build script and health check go in', () => {
    const lines = readText('.dockerignore').split('\n').map((line) => line.trim());
    expect(lines).toEqual(expect.arrayContaining(['**/node_modules', '**/var', '**/dist', '!scripts/build', '!deploy/healthcheck.sh']));
    expect(dockerfile).toContain('COPY scripts/build/ scripts/build/');
    expect(finalStage).toContain('COPY deploy/healthcheck.sh /usr/local/bin/esim-healthcheck');
  });
});
