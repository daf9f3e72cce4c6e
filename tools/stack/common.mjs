// Shared steps of `npm start` and `npm test`. Node builtins only: these run before `npm install`.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, lstatSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export function logger(name, color = 90) {
  const tag = process.stdout.isTTY ? `\x1b[${color}m[${name}]\x1b[0m` : `[${name}]`;
  return (...args) => console.log(tag, ...args);
}
export const log = logger('stack', 1);

export function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed with exit code ${r.status}`);
}

/**
 * Installs the npm dependencies when node_modules is missing or was installed from another lock
 * file (a hash of package-lock.json is kept beside the install). A node_modules that is a symlink
 * belongs to another checkout: it is never reinstalled through the link (npm ci would empty it).
 */
export function ensureInstalled() {
  const dir = path.join(ROOT, 'node_modules');
  const marker = path.join(dir, '.payments-lock-sha256');
  const hash = createHash('sha256')
    .update(readFileSync(path.join(ROOT, 'package-lock.json')))
    .digest('hex');
  if (existsSync(marker) && readFileSync(marker, 'utf8').trim() === hash) return;
  if (existsSync(dir) && lstatSync(dir).isSymbolicLink()) {
    log('node_modules is a link to another checkout: not reinstalling it (run npm ci there if its lock file differs)');
    return;
  }
  log('installing npm dependencies (npm ci)…');
  run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error']);
  writeFileSync(marker, hash + '\n');
}

/** Compiles the apps and libs to dist/ (incremental). */
export function build() {
  log('compiling TypeScript…');
  run(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json']);
}

/**
 * Kafka and PostgreSQL: the configured ones (KAFKA_BROKERS, DATABASE_URL), else local ones this
 * script starts (and stops again with `stop()`).
 */
export async function ensureInfra() {
  const { ensureKafka } = await import('../infra/kafka.mjs');
  const { ensurePostgres } = await import('../infra/postgres.mjs');
  const kafkaLog = logger('kafka', 90);
  const pgLog = logger('postgres', 90);
  const [kafka, pg] = await Promise.all([
    ensureKafka({ rootDir: ROOT, log: kafkaLog }),
    ensurePostgres({ rootDir: ROOT, log: pgLog }),
  ]);
  return {
    env: { KAFKA_BROKERS: kafka.brokers, DATABASE_URL: pg.url },
    startedKafka: kafka.startedByUs,
    startedPostgres: pg.startedByUs,
    /** What this call started, for a run's watchdog (tools/infra/process.mjs). */
    processes: [
      ...(kafka.pid ? [{ pid: kafka.pid, group: true }] : []),
      ...(pg.pid ? [{ pid: pg.pid, signal: /** @type {const} */ ('SIGINT') }] : []),
    ],
    async stop() {
      if (kafka.startedByUs) await kafka.stop();
      if (pg.startedByUs) await pg.stop();
    },
  };
}

/** Creates the contract topics, the reply topics and the health topic (from the compiled contracts library) where missing. */
export async function ensureContractTopics(brokers, prefix = '') {
  const { ensureTopics } = await import('../infra/kafka.mjs');
  const { createRequire } = await import('node:module');
  const require = createRequire(import.meta.url);
  const { topicSpecs, replyTopicSpecs, healthTopicSpec } = require(path.join(ROOT, 'dist/libs/contracts/src/index.js'));
  const topics = [...topicSpecs(prefix), ...replyTopicSpecs(prefix), healthTopicSpec(prefix)].map((s) => ({
    topic: s.name,
    numPartitions: s.partitions,
    configEntries: Object.entries(s.config ?? {}).map(([name, value]) => ({ name, value })),
  }));
  await ensureTopics(brokers, topics, { log: logger('kafka', 90), rootDir: ROOT });
}

/**
 * The V8 options every service runs with, here as in the image (the Dockerfile's
 * `ENV NODE_OPTIONS`; tests/deploy/node-options.spec.ts keeps the two equal). Without a cap V8
 * sizes the heap from the machine's memory, and on a large machine lets garbage grow to about
 * four times the live heap before it collects (docs/decisions.md 230).
 */
export const SERVICE_NODE_OPTIONS = ['--max-old-space-size=256'];

/** The services that tokenize card numbers, the only ones given CARD_VAULT_FINGERPRINT_KEY (decision 259). */
export const TOKENIZING_SERVICES = ['gateway', 'checkout'];

/**
 * Spawns a compiled service; its output goes to the console (Nest's logger names the service on
 * every line) or, with `logFile`, to that file, and then also to `echo(line)` where one is given
 * (`npm start -- --logs` follows the files on the console). Returns null when the service is not built.
 * @param {string} name
 * @param {Record<string, string>} env
 * @param {{ logFile?: string, nodeArgs?: string[], echo?: (line: string) => void }} [opts]
 */
export function startService(name, env, { logFile, nodeArgs = [], echo } = {}) {
  const main = path.join(ROOT, 'dist/apps', name, 'src/main.js');
  if (!existsSync(main)) return null;
  /** @type {NodeJS.ProcessEnv} */
  const childEnv = { ...process.env, ...env, TS_NODE_PROJECT: path.join(ROOT, 'tsconfig.dist.json') };
  // As in k8s and Compose, only the services that tokenize cards get the fingerprint key (decision 259).
  if (!TOKENIZING_SERVICES.includes(name)) delete childEnv.CARD_VAULT_FINGERPRINT_KEY;
  // tsconfig-paths resolves the @payments/* imports to dist/libs (tsconfig.dist.json says how).
  const child = spawn(process.execPath, [...SERVICE_NODE_OPTIONS, ...nodeArgs, '-r', 'tsconfig-paths/register', main], {
    cwd: ROOT,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const file = logFile ? createWriteStream(logFile) : undefined;
  const say = file
    ? (line) => {
        file.write(line + '\n');
        echo?.(line);
      }
    : (line) => console.log(line);
  const pipe = (stream) => {
    let buf = '';
    stream.on('data', (d) => {
      buf += d.toString();
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        say(buf.slice(0, i));
        buf = buf.slice(i + 1);
      }
    });
  };
  pipe(child.stdout);
  pipe(child.stderr);
  return child;
}

/** The last `n` lines of a file (a service's log, shown when it failed to start). */
export function lastLines(file, n = 20) {
  if (!existsSync(file)) return '';
  return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-n).join('\n');
}

export async function waitForHttp(url, timeoutMs = 60000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const r = await fetch(url);
      if (r.status < 500) return;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
