// `npm test`: installs what is missing, makes sure Kafka and PostgreSQL run, then type-checks,
// lints and runs every jest test against them (the unit and component projects) and the node:test
// files of tools/ and examples/, then the bounded fault suite (`test:faults --quick`: its safe
// scenarios on the same broker and database, a and c on a broker and a PostgreSQL of its own).
// Arguments are passed to jest (and then the other steps are skipped).
// A step that passes prints one line; a failing one prints its whole output.
import { mkdirSync, readFileSync, existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ensureInstalled, ensureInfra, log, ROOT } from './common.mjs';
import { startWatchdog } from '../infra/process.mjs';
import { ensurePromtool } from '../infra/promtool.mjs';
import { ensureChromium } from '../infra/chromium.mjs';

const jestArgs = process.argv.slice(2);
const started = Date.now();
ensureInstalled();
const infra = await ensureInfra();
// A broker or PostgreSQL started here stops with this run, also when a ^C kills it mid-step.
const watchdog = startWatchdog({ log });
if (!process.env.KEEP_INFRA) for (const p of infra.processes) watchdog.own(p.pid, p);
/** @type {NodeJS.ProcessEnv} */
const env = { ...process.env, ...infra.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' };
// The metrics tests lint every /metrics answer and the alert rules with Prometheus' promtool.
// Without it those tests fail, saying so; the rest still run.
try {
  const promtoolDir = ensurePromtool({ rootDir: ROOT, log });
  if (promtoolDir) env.PATH = `${promtoolDir}${path.delimiter}${env.PATH ?? ''}`;
} catch (err) {
  log(`promtool unavailable: ${err instanceof Error ? err.message : err}`);
}
// The browser tests (hosted pages, operators' console) drive a real headless Chromium.
// Without one they fail, saying so; the rest still run.
try {
  env.CHROMIUM_PATH = ensureChromium({ log });
} catch (err) {
  log(`Chromium unavailable: ${err instanceof Error ? err.message : err}`);
}
let failed = false;

/**
 * Runs one step. `quiet` steps keep their output unless they fail; the others (jest, the fault
 * suite) stream theirs, which is already one line a test file or scenario.
 */
function step(name, cmd, args, { quiet = false } = {}) {
  if (!quiet) log(`${name}…`);
  const t = Date.now();
  const r = spawnSync(cmd, args, {
    cwd: ROOT,
    stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    env,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (quiet && r.status !== 0) process.stdout.write(`${r.stdout ?? ''}${r.stderr ?? ''}`);
  log(`${name}: ${r.status === 0 ? 'ok' : `failed (exit ${r.status})`} in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  if (r.status !== 0) failed = true;
  return r;
}

/** The node:test files (dependency-free on purpose: the example is for merchants to copy). */
const NODE_TESTS = [
  'tools/faults/reconcile.test.mjs',
  'tools/faults/books.test.mjs',
  'tools/bench/cpu.test.mjs',
  'tools/infra/kafka.test.mjs',
  'examples/merchant-callback-verify/verify.test.js',
];
/** Totals of a TAP run (`# pass 9`), added to jest's in the closing lines. */
function tapTotals(out) {
  const n = (key) => Number(out.match(new RegExp(`^# ${key} (\\d+)$`, 'm'))?.[1] ?? 0);
  return { passed: n('pass'), failed: n('fail') + n('cancelled'), skipped: n('skipped') + n('todo') };
}
let nodeTests = { passed: 0, failed: 0, skipped: 0 };

const bin = (p) => path.join(ROOT, 'node_modules', p);
const results = path.join(ROOT, '.run', 'jest-results.json');
mkdirSync(path.dirname(results), { recursive: true });
rmSync(results, { force: true });
try {
  if (jestArgs.length === 0) {
    const quiet = { quiet: true };
    step('type-check', process.execPath, [bin('typescript/bin/tsc'), '-p', 'tsconfig.json', '--noEmit'], quiet);
    step(
      'type-check tools/**/*.mjs',
      process.execPath,
      [bin('typescript/bin/tsc'), '-p', 'tools/tsconfig.json'],
      quiet,
    );
    // The module-boundary rule reads Nx's project graph, which `nx show projects` computes and caches.
    step('project graph', process.execPath, [bin('nx/bin/nx.js'), 'show', 'projects'], quiet);
    step(
      'lint (module boundaries included)',
      process.execPath,
      [bin('eslint/bin/eslint.js'), '.', '--max-warnings=0'],
      quiet,
    );
    step(
      'format (prettier --check)',
      process.execPath,
      [bin('prettier/bin/prettier.cjs'), '--check', '--log-level=warn', '.'],
      quiet,
    );
    const tap = step(
      'node:test (tools, examples)',
      process.execPath,
      ['--test', '--test-reporter=tap', ...NODE_TESTS],
      quiet,
    );
    nodeTests = tapTotals(tap.stdout ?? '');
    if (nodeTests.passed === 0) failed = true;
  }
  const { status: jestStatus } = step('jest', process.execPath, [
    bin('jest/bin/jest.js'),
    '--json',
    `--outputFile=${results}`,
    ...jestArgs,
  ]);
  // Only on a full, green run: the fault suite takes minutes and proves nothing on broken code.
  if (jestArgs.length === 0 && jestStatus === 0 && !failed) {
    step('fault suite (test:faults --quick)', process.execPath, [
      path.join(ROOT, 'tools/faults/faults.mjs'),
      '--quick',
    ]);
  }
} finally {
  if (!process.env.KEEP_INFRA) await infra.stop();
  for (const p of infra.processes) watchdog.disown(p.pid);
  await watchdog.standDown();
}

if (existsSync(results)) {
  const r = JSON.parse(readFileSync(results, 'utf8'));
  const failedTests = r.numFailedTests + (r.numRuntimeErrorTestSuites ?? 0) + nodeTests.failed;
  const passedTests = r.numPassedTests + nodeTests.passed;
  console.log(`\nsuites: ${r.numPassedTestSuites} passed, ${r.numFailedTestSuites} failed`);
  console.log(`tests: ${passedTests} passed, ${failedTests} failed, ${r.numPendingTests + nodeTests.skipped} skipped`);
  if (r.numTotalTests === 0) failed = true;
} else {
  console.log('\ntests: 0 passed, 1 failed (jest produced no results)');
  failed = true;
}
log(`finished in ${((Date.now() - started) / 1000).toFixed(0)} s: ${failed ? 'FAILED' : 'all green'}`);
process.exit(failed ? 1 : 0);
