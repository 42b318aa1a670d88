// Protects the one-list rule: docker-compose.yml and deploy/k8s are exactly what `npm run deploy:gen` makes of the service list, and the list names every service folder.
import { describe, it, expect } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { services, type ServiceEntry } from '../scripts/launcher/services.js';
import { generatedDirs, generatedFiles, k8sDir } from '../scripts/deploy/files.js';
import { generatedHeader } from '../scripts/deploy/settings.js';
import { root, serviceFolders, type Json } from './support/deployFiles.js';

const regenerate = 'run `npm run deploy:gen` and commit the result';

describe('the service list', () => {
  it('when a folder under services/ has no entry in scripts/launcher/services.ts, then this fails naming it', () => {
    const listed = new Set(services.map((entry) => entry.name));
    const unlisted = serviceFolders().filter((folder) => !listed.has(folder));
    expect(unlisted, `services/${unlisted.join(', services/')} must be added to the service list in scripts/launcher/services.ts`).toEqual([]);
  });

  it('when an entry is in the list, then services/<name> exists with a package.json and src/main.ts', () => {
    const missing = services
      .flatMap((entry) => ['package.json', 'src/main.ts'].map((file) => `services/${entry.name}/${file}`))
      .filter((path) => !existsSync(join(root, path)));
    expect(missing, 'the service list names a service whose folder is missing these files').toEqual([]);
  });
});

describe('generated deployment files', () => {
  const files = generatedFiles();

  it.each([...files.keys()])('when %s is committed, then it is what the service list generates', (path) => {
    const committed = existsSync(join(root, path)) ? readFileSync(join(root, path), 'utf8') : undefined;
    expect(committed === files.get(path), `${path} differs from the service list: ${regenerate}`).toBe(true);
  });

  it('when a service leaves the list, then its generated manifest is gone too', () => {
    const stale = [k8sDir, ...generatedDirs]
      .flatMap((dir) => readdirSync(join(root, dir)).map((name) => `${dir}/${name}`))
      .filter((path) => /\.(yaml|env)$/.test(path) && !files.has(path))
      .filter((path) => readFileSync(join(root, path), 'utf8').startsWith(generatedHeader));
    expect(stale, `stale generated manifests: ${regenerate}`).toEqual([]);
  });

  it('when a new entry is added to the list, then Compose and kustomize gain a health-checked service for it with no other change', () => {
    const newcomer: ServiceEntry = {
      name: 'newcomer',
      ports: { grpc: 50199, health: 9199 },
      needs: ['postgres', 'nats'],
      secrets: ['DATA_ENCRYPTION_KEY'],
    };
    const generated = generatedFiles([...services, newcomer]);

    const compose = parse(generated.get('docker-compose.yml')!, { merge: true }) as { services: Record<string, Json> };
    expect(compose.services.newcomer).toMatchObject({
      image: '${ESIM_IMAGE:-esim-platform:local}',
      environment: { SERVICE: 'newcomer', OTEL_SERVICE_NAME: 'newcomer', GRPC_PORT: '50199', HEALTH_PORT: '9199' },
      healthcheck: { test: ['CMD', 'esim-healthcheck', '9199', '/readyz'] },
      depends_on: { postgres: { condition: 'service_healthy' }, nats: { condition: 'service_healthy' } },
    });
    const edge = services.find((entry) => entry.last)?.name;
    if (edge) expect((compose.services[edge] as { depends_on: Json }).depends_on).toHaveProperty('newcomer');

    const kustomization = parse(generated.get(`${k8sDir}/base/kustomization.yaml`)!) as { resources: string[] };
    expect(kustomization.resources).toContain('newcomer.yaml');
    const [deployment, service, budget, policy] = parseAllDocuments(generated.get(`${k8sDir}/base/newcomer.yaml`)!).map((doc) => doc.toJS() as Json);
    expect(deployment).toMatchObject({ kind: 'Deployment', metadata: { name: 'newcomer' } });
    const container = (deployment as { spec: { template: { spec: { containers: Json[] } } } }).spec.template.spec.containers[0]!;
    expect(container).toMatchObject({
      startupProbe: { httpGet: { path: '/healthz', port: 'http-health' } },
      readinessProbe: { httpGet: { path: '/readyz', port: 'http-health' } },
      livenessProbe: { httpGet: { path: '/healthz', port: 'http-health' } },
    });
    expect(container.env).toEqual(
      expect.arrayContaining([
        { name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: 'esim-secrets', key: 'DATABASE_URL' } } },
        { name: 'DATA_ENCRYPTION_KEY', valueFrom: { secretKeyRef: { name: 'esim-secrets', key: 'DATA_ENCRYPTION_KEY' } } },
      ]),
    );
    expect(service).toMatchObject({ kind: 'Service', metadata: { name: 'newcomer' }, spec: { type: 'ClusterIP', clusterIP: 'None' } });
    expect(budget).toMatchObject({ kind: 'PodDisruptionBudget', spec: { selector: { matchLabels: { 'app.kubernetes.io/name': 'newcomer' } } } });
    expect(policy).toMatchObject({ kind: 'NetworkPolicy', spec: { podSelector: { matchLabels: { 'app.kubernetes.io/name': 'newcomer' } } } });
    const jobs = generated.get(`${k8sDir}/overlays/production/migrations.yaml`)!;
    expect(jobs, 'a migration Job for a service with a database').toContain('name: newcomer-migrate');
  });
});
