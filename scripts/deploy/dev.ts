/**
 * deploy/k8s/overlays/dev: the base on a laptop cluster (kind, minikube, k3d)
 * beside in-cluster Postgres, Redis, NATS and Mailpit named as in Compose.
 * One replica each, debug logs, every trace sampled, migrations at start,
 * and placeholder secrets generated here so it applies as is.
 */
import type { ServiceEntry } from '../launcher/services.js';
import { envFile } from './base.js';
import { generatedHeader, imageName, namespaceName, partOf, secretDoc, secretKeysOf, secretName } from './settings.js';

export const devSettings: Record<string, string> = {
  LOG_LEVEL: 'debug',
  DEPLOYMENT_ENVIRONMENT: 'dev',
  MIGRATE: 'on-start',
  OTEL_TRACES_SAMPLER: 'parentbased_always_on',
  // Test receivers on the laptop are plain http://.
  WEBHOOK_ALLOW_INSECURE_URLS: 'true',
};

/** Compose's placeholder, without the `${VAR:-…}` around it. */
const placeholder = (key: Parameters<typeof secretDoc>[0]) => secretDoc(key).devClusterPlaceholder ?? secretDoc(key).composeDefault.replace(/^\$\{[A-Z_]+:-(.*)\}$/, '$1');

function kustomization(list: readonly ServiceEntry[]): string {
  const keys = [...new Set(list.flatMap((entry) => secretKeysOf(entry)))];
  return `${generatedHeader}
#
# kubectl apply -k deploy/k8s/overlays/dev after loading the image into the
# cluster (kind load docker-image ${imageName}:dev). The placeholder secrets
# are the ones docker-compose.yml uses: never for anything reachable.
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: ${namespaceName}
resources:
  - ../../base
configMapGenerator:
  - name: esim-config
    behavior: merge
    envs:
      - config.env
secretGenerator:
  - name: ${secretName}
    options:
      labels:
        app.kubernetes.io/part-of: ${partOf}
    literals:
${keys.map((key) => `      - ${key}=${placeholder(key)}`).join('\n')}
images:
  - name: ${imageName}
    newTag: dev
patches:
  - target:
      kind: Deployment
      labelSelector: app.kubernetes.io/part-of=${partOf}
    patch: |-
      - op: replace
        path: /spec/replicas
        value: 1
`;
}

export function devFiles(list: readonly ServiceEntry[]): Record<string, string> {
  return {
    'kustomization.yaml': kustomization(list),
    'config.env': envFile('Development settings, merged over the base\'s.', [['Development', devSettings]]),
  };
}
