// Protects the one image every service runs from: base, user, command and what the build context carries.
import { describe, it, expect } from 'vitest';
import { runAsUser, startCommand, readText, serviceNames } from './support/deployFiles.js';

describe('Dockerfile', () => {
  const dockerfile = readText('Dockerfile');
  const rootPackage = JSON.parse(readText('package.json')) as { dependencies?: Record<string, string> };

  it('when the image is built, then it is Node 24 slim, works in /app and runs as uid 10001', () => {
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:24-bookworm-slim$/m);
    expect(dockerfile).toMatch(/^WORKDIR \/app$/m);
    expect(dockerfile).toMatch(/^ARG SERVICE=/m);
    expect(dockerfile).toMatch(new RegExp(`^USER ${runAsUser}(:${runAsUser})?$`, 'm'));
  });

  it('when the image starts a service, then it runs the same command as that service\'s npm start', () => {
    expect(dockerfile).toContain(`cd \\"services/$SERVICE\\" && exec ${startCommand}`);
    for (const name of serviceNames()) {
      const pkg = JSON.parse(readText(`services/${name}/package.json`)) as { scripts?: Record<string, string> };
      expect(pkg.scripts?.start, name).toBe(startCommand);
    }
  });

  it('when dev dependencies are omitted from the image, then tsx is still a runtime dependency', () => {
    expect(dockerfile).toContain('npm ci --omit=dev');
    expect(rootPackage.dependencies?.tsx).toBeDefined();
  });

  it('when the build context is sent, then node_modules and var/ stay out of it', () => {
    const ignored = readText('.dockerignore').split('\n').map((line) => line.trim());
    expect(ignored).toEqual(expect.arrayContaining(['**/node_modules', '**/var']));
  });
});
