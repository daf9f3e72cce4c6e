import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { loadAll } from 'js-yaml';
import { healthTopicSpec, replyTopicSpecs, topicSpecs } from '@payments/contracts';

const K8S = path.join(__dirname, '..', '..', 'k8s');

interface Probe {
  httpGet?: { path: string; port: string | number };
  exec?: { command: string[] };
}
interface Container {
  name: string;
  env?: { name: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
  startupProbe?: Probe;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
}
interface Manifest {
  kind: string;
  metadata: { name: string };
  spec: { template?: { spec: { containers: Container[] } }; partitions?: number; config?: Record<string, unknown> };
}

/**
 * The base as Kubernetes gets it: `kubectl kustomize k8s/base` where kubectl is installed, else the
 * base's files read as they are (the same Deployments: the base has no patches).
 */
function renderedBase(): { manifests: Manifest[]; by: string } {
  const kubectl = spawnSync('kubectl', ['kustomize', path.join(K8S, 'base')], { encoding: 'utf8' });
  if (kubectl.status === 0) return { manifests: loadAll(kubectl.stdout) as Manifest[], by: 'kubectl kustomize' };
  const files = readdirSync(path.join(K8S, 'base')).filter(
    (f) => f.endsWith('.yaml') && f !== 'kustomization.yaml' && !f.includes('template'),
  );
  return {
    manifests: files.flatMap((f) => loadAll(readFileSync(path.join(K8S, 'base', f), 'utf8')) as Manifest[]),
    by: 'the base files',
  };
}

/** Where a probe asks: an HTTP path, or the URL a `node -e fetch(…)` exec probe fetches. */
function target(probe: Probe | undefined): string | undefined {
  if (probe?.httpGet) return probe.httpGet.path;
  const script = probe?.exec?.command.join(' ') ?? '';
  return script.match(/fetch\('http:\/\/127\.0\.0\.1:\d+(\/[^']*)'\)/)?.[1];
}

describe('k8s Deployments probe readiness and liveness apart (issue 27)', () => {
  const { manifests } = renderedBase();
  const deployments = manifests.filter((m) => m.kind === 'Deployment');

  it('when the base is rendered, then it has a Deployment for every service', () => {
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(
      expect.arrayContaining([
        'gateway',
        'orders',
        'payouts',
        'p2p',
        'methods',
        'merchant-callbacks',
        'callbacks-ingest',
        'checkout',
      ]),
    );
  });

  it.each(['gateway', 'orders', 'payouts', 'p2p', 'methods', 'merchant-callbacks', 'callbacks-ingest', 'checkout'])(
    'when %s runs, then readiness asks /health/ready, liveness and start-up /health/live, and its instance id is the pod name',
    (name) => {
      const container = deployments.find((d) => d.metadata.name === name)!.spec.template!.spec.containers[0];
      expect(target(container.readinessProbe)).toBe('/health/ready');
      expect(target(container.livenessProbe)).toBe('/health/live');
      expect(target(container.startupProbe)).toBe('/health/live');
      expect(container.env?.find((e) => e.name === 'INSTANCE_ID')?.valueFrom?.fieldRef?.fieldPath).toBe(
        'metadata.name',
      );
    },
  );
});

describe('k8s topics', () => {
  const topics = loadAll(readFileSync(path.join(K8S, 'infra', 'kafka-topics.yaml'), 'utf8')) as Manifest[];

  it('when the Topic Operator applies them, then every contract, reply and health topic exists as its spec says: partitions, retention, compaction', () => {
    const names = topics.map((t) => t.metadata.name);
    for (const spec of [...topicSpecs(), ...replyTopicSpecs(), healthTopicSpec()]) expect(names).toContain(spec.name);
    for (const spec of [...topicSpecs(), ...replyTopicSpecs(), healthTopicSpec()]) {
      const topic = topics.find((t) => t.metadata.name === spec.name)!;
      expect(topic.spec.partitions).toBe(spec.partitions);
      // Exactly the spec's settings, besides the cluster's own replication setting.
      const config = Object.fromEntries(
        Object.entries(topic.spec.config ?? {})
          .filter(([key]) => key !== 'min.insync.replicas')
          .map(([key, value]) => [key, String(value)]),
      );
      expect({ topic: spec.name, config }).toEqual({ topic: spec.name, config: spec.config ?? {} });
    }
  });
});
