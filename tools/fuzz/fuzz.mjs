// `npm run fuzz -- --requests N --seed S`: the OpenAPI fuzzer (tests/fuzz) against the real stack,
// longer than the bounded run inside `npm test`. Without --seed a random one is drawn and printed;
// give it again to replay the same requests.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ensureInfra, ensureInstalled, log, ROOT } from '../stack/common.mjs';

const { values } = parseArgs({
  options: { requests: { type: 'string', default: '10000' }, seed: { type: 'string' } },
});
const requests = Number(values.requests);
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
if (!Number.isInteger(requests) || requests < 1)
  throw new Error(`--requests must be a positive integer, not ${values.requests}`);
if (!Number.isInteger(seed)) throw new Error(`--seed must be an integer, not ${values.seed}`);

ensureInstalled();
const infra = await ensureInfra();
log(`fuzzing with ${requests} requests, seed ${seed} (replay: npm run fuzz -- --requests ${requests} --seed ${seed})`);
let status = 1;
try {
  const r = spawnSync(
    process.execPath,
    [path.join(ROOT, 'node_modules/jest/bin/jest.js'), 'tests/fuzz', '--maxWorkers=1', '--testTimeout=3600000'],
    {
      cwd: ROOT,
      stdio: 'inherit',
      env: { ...process.env, ...infra.env, FUZZ_REQUESTS: String(requests), FUZZ_SEED: String(seed) },
    },
  );
  status = r.status ?? 1;
} finally {
  if (!process.env.KEEP_INFRA) await infra.stop();
}
log(`fuzz: ${status === 0 ? 'no findings' : 'findings above'} (seed ${seed})`);
process.exit(status);
