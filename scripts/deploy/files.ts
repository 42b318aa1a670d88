/** Every deployment file generated from the service list, by path from the repository root. */
import { services, type ServiceEntry } from '../launcher/services.js';
import { baseFiles, secretsExample } from './base.js';
import { composeFile } from './compose.js';
import { devFiles } from './dev.js';
import { composePrometheus, monitoringFiles, observabilityDir } from './monitoring.js';
import { productionFiles } from './production.js';

export const k8sDir = 'deploy/k8s';
/** The directories this generator owns: it writes every file in them and removes generated ones it no longer makes. */
export const generatedDirs = [`${k8sDir}/base`, `${k8sDir}/overlays/dev`, `${k8sDir}/overlays/production`, `${k8sDir}/monitoring`];

export function generatedFiles(list: readonly ServiceEntry[] = services): Map<string, string> {
  const files = new Map<string, string>([
    ['docker-compose.yml', composeFile(list)],
    [`${observabilityDir}/prometheus.yml`, composePrometheus(list)],
    [`${k8sDir}/secrets.example.yaml`, secretsExample(list)],
  ]);
  const dirs: Array<[string, Record<string, string>]> = [
    [`${k8sDir}/base`, baseFiles(list)],
    [`${k8sDir}/overlays/dev`, devFiles(list)],
    [`${k8sDir}/overlays/production`, productionFiles(list)],
    [`${k8sDir}/monitoring`, monitoringFiles(list)],
  ];
  for (const [dir, byName] of dirs) for (const [name, text] of Object.entries(byName)) files.set(`${dir}/${name}`, text);
  return files;
}
