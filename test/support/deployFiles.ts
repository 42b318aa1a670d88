/** Reading the deployment files for their tests (Kubernetes, Compose, Dockerfile): the generated base as committed, and each overlay as kustomize renders it. */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';
import { Deployment, type IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import { Service, type IService } from 'kubernetes-models/v1/Service';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IProbe } from 'kubernetes-models/v1/Probe';
import { isObject, kindOf, type Json } from './k8sShapes.js';

export * from './k8sShapes.js';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const k8sDir = join(root, 'deploy/k8s');
export const baseDir = join(k8sDir, 'base');
export const overlays = ['dev', 'production'] as const;
export type Overlay = (typeof overlays)[number];
export const secretName = 'esim-secrets';
export const configMapName = 'esim-config';
export const runAsUser = 10001;
/** How `npm start` (the launcher) and each service's own `npm start` run a service: sources, through tsx. */
export const devStartCommand = 'node --conditions=development --import tsx --import @esim/telemetry/register src/main.ts';
/** How the image runs a service: compiled JavaScript, telemetry preloaded, no TypeScript loader. */
export const productionStartCommand = 'node --import @esim/telemetry/register dist/main.js';

export function readText(path: string): string {
  return readFileSync(join(root, path), 'utf8');
}

/** Every folder of services/ that is an npm workspace: each must be an entry of the service list. */
export function serviceFolders(): string[] {
  return readdirSync(join(root, 'services'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, 'services', entry.name, 'package.json')))
    .map((entry) => entry.name)
    .sort();
}

export function parseYamlDocuments(text: string, where: string): Json[] {
  return parseAllDocuments(text).map((doc, index) => {
    if (doc.errors.length > 0) throw new Error(`${where} document ${index}: ${doc.errors.map((e) => e.message).join('; ')}`);
    const value: unknown = doc.toJS();
    if (!isObject(value)) throw new Error(`${where} document ${index} is not a mapping`);
    return value;
  });
}

export function parseDocuments(path: string): Json[] {
  return parseYamlDocuments(readText(path), path);
}

export function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, command)));
}

// ---------------------------------------------------------------------------
// The base, read once (the generated files as committed).

export const kustomization = parse(readText('deploy/k8s/base/kustomization.yaml')) as {
  namespace?: string;
  resources?: string[];
  images?: { name: string; newName?: string; newTag?: string; digest?: string }[];
  configMapGenerator?: { name: string; envs?: string[] }[];
};
export const resourceFiles = kustomization.resources ?? [];
export const manifestFiles = readdirSync(baseDir)
  .filter((file) => file.endsWith('.yaml') && file !== 'kustomization.yaml')
  .sort();
export const manifests = manifestFiles.flatMap((file) => parseDocuments(`deploy/k8s/base/${file}`).map((doc) => ({ file, doc })));
export const deployments = manifests.filter(({ doc }) => kindOf(doc) === 'apps/v1/Deployment').map(({ doc }) => new Deployment(doc as unknown as IDeployment));
export const k8sServices = manifests.filter(({ doc }) => kindOf(doc) === 'v1/Service').map(({ doc }) => new Service(doc as unknown as IService));

/** `KEY=value` lines of a configMapGenerator env file. */
export function readEnvFile(path: string): Record<string, string> {
  return Object.fromEntries(
    readText(path)
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('#'))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}
/** The ConfigMap the base generates, as data. */
export const configMap = { metadata: { name: configMapName }, data: readEnvFile('deploy/k8s/base/config.env') };
export const secretExample = parseDocuments('deploy/k8s/secrets.example.yaml')[0] as { metadata: { name: string }; stringData: Record<string, string> };

// ---------------------------------------------------------------------------
// Overlays, rendered by `kubectl kustomize` (once each).

const rendered = new Map<string, Json[]>();
export function render(dir: string): Json[] {
  if (!rendered.has(dir)) {
    const output = execFileSync('kubectl', ['kustomize', join(k8sDir, dir)], { encoding: 'utf8', timeout: 60_000 });
    rendered.set(dir, parseYamlDocuments(output, `kubectl kustomize ${dir}`));
  }
  return rendered.get(dir)!;
}

export const ofKind = (docs: Json[], kind: string) => docs.filter((doc) => doc.kind === kind);
export const named = (doc: Json) => String((doc.metadata as Json | undefined)?.name);

export function containersOf(deployment: Deployment): IContainer[] {
  return deployment.spec?.template.spec?.containers ?? [];
}

export function envValue(container: IContainer, name: string): string | undefined {
  return container.env?.find((entry) => entry.name === name)?.value;
}

/** A probe's port must name or number one of the container's ports, or it probes nothing. */
export function probeTargetsDeclaredPort(container: IContainer, probe: IProbe | undefined): boolean {
  const port = probe?.httpGet?.port ?? probe?.grpc?.port;
  return (container.ports ?? []).some((declared) => declared.name === port || declared.containerPort === port);
}

/** True when every label of `selector` is on `labels` (a matchLabels selector selecting a pod). */
export function selects(selector: Record<string, string> | undefined, labels: Record<string, string> | undefined): boolean {
  return selector !== undefined && Object.entries(selector).every(([key, value]) => labels?.[key] === value);
}
