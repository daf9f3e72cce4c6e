import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The services' V8 heap cap (docs/decisions.md 230): the image and the local stack (`npm start`,
 * the bench, the fault suite) start every service with the same options, node takes them, and
 * every pod's memory limit holds the capped heap and what lives outside it.
 */
const ROOT = path.join(__dirname, '..', '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** `ENV NODE_OPTIONS=…` of the Dockerfile's runtime stage (the stage the services run in). */
function imageNodeOptions(): string {
  const runtime = read('Dockerfile').split(/^FROM .* AS runtime$/m)[1];
  expect(runtime).toBeDefined();
  const env = /^ENV NODE_OPTIONS=(\S+)$/m.exec(runtime);
  expect(env).not.toBeNull();
  return env![1];
}

/** SERVICE_NODE_OPTIONS of tools/stack/common.mjs, which spawns the services locally. */
function stackNodeOptions(): string[] {
  const list = /^export const SERVICE_NODE_OPTIONS = \[([^\]]*)\];$/m.exec(read('tools/stack/common.mjs'));
  expect(list).not.toBeNull();
  return [...list![1].matchAll(/'([^']+)'/g)].map((m) => m[1]);
}

const capMb = (options: string) => Number(/--max-old-space-size=(\d+)/.exec(options)?.[1]);

/**
 * Outside the old generation, measured on the services (docs/performance.md, "Memory of the
 * services"): the young generation (up to 3 × 16 MB), code, node's own memory and buffers, about
 * 60 MB at rest and 100 MB under load. A limit below cap + this gets the pod OOM-killed (no
 * graceful shutdown) before V8 has collected as hard as it can.
 */
const OUTSIDE_OLD_SPACE_MB = 128;

const mib = (quantity: string) => {
  const m = /^(\d+)(Mi|Gi)$/.exec(quantity);
  if (!m) throw new Error(`unexpected memory quantity ${quantity}`);
  return Number(m[1]) * (m[2] === 'Gi' ? 1024 : 1);
};

describe('the services V8 options', () => {
  it('when a service starts from the image or from the local stack, then it gets the same options', () => {
    expect(stackNodeOptions()).toEqual(imageNodeOptions().split(' '));
  });

  it('when node starts with them, then the old generation is capped at what they say', () => {
    const options = imageNodeOptions();
    const run = spawnSync(
      process.execPath,
      ['-e', "process.stdout.write(String(require('v8').getHeapStatistics().heap_size_limit))"],
      { env: { ...process.env, NODE_OPTIONS: options }, encoding: 'utf8' },
    );
    expect(run.status).toBe(0);
    const limitMb = Number(run.stdout) / 1024 / 1024;
    // heap_size_limit is the old generation plus the young one (48 MB at most on 64-bit).
    expect(limitMb).toBeGreaterThanOrEqual(capMb(options));
    expect(limitMb).toBeLessThanOrEqual(capMb(options) + 64);
  });

  const manifests = [
    ...readdirSync(path.join(ROOT, 'k8s/base')).map((f) => `k8s/base/${f}`),
    ...readdirSync(path.join(ROOT, 'k8s/overlays/local')).map((f) => `k8s/overlays/local/${f}`),
  ].filter((f) => /^kind: Deployment$/m.test(read(f)));

  it('when the manifests are read, then there are the services Deployments', () => {
    expect(manifests.length).toBeGreaterThanOrEqual(9);
  });

  it.each(manifests)('when %s runs, then its memory limit holds the capped heap and the rest', (file) => {
    const text = read(file);
    const ownOptions = /- name: NODE_OPTIONS\n\s+value: '?([^'\n]+)'?/.exec(text)?.[1];
    const cap = capMb(ownOptions ?? imageNodeOptions());
    const limits = [...text.matchAll(/limits:\n(?:\s+(?:cpu: \S+|#.*)\n)*\s+memory: (\S+)/g)].map((m) => mib(m[1]));
    expect(limits.length).toBeGreaterThan(0);
    for (const limit of limits) expect(limit).toBeGreaterThanOrEqual(cap + OUTSIDE_OLD_SPACE_MB);
  });

  it('when the production overlay sets every container resources, then its limit holds them too', () => {
    const patch = read('k8s/overlays/production/kustomization.yaml');
    const limit = /limits:\n\s+cpu: \S+\n\s+memory: (\S+)/.exec(patch);
    expect(limit).not.toBeNull();
    expect(mib(limit![1])).toBeGreaterThanOrEqual(capMb(imageNodeOptions()) + OUTSIDE_OLD_SPACE_MB);
  });
});
