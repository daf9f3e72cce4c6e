// The fault suite's own broker and PostgreSQL, for the scenarios that crash or stop one (a, c, k)
// or need more connections than a shared one gives (j): started on fresh storage and ports of
// their own, crashed, stopped and restarted on the same data. What the suite started it stops
// however it ends (tools/infra/process.mjs); they are detached (their own session), so a ^C
// reaches the suite, which stops them in order.
import { appendFileSync, mkdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ROOT } from '../stack/common.mjs';
import { ensureKafka, stopKafka } from '../infra/kafka.mjs';
import { ensurePostgres, stopEmbeddedPostgres } from '../infra/postgres.mjs';
import { readPid } from '../infra/process.mjs';

const OWN_KAFKA_DIR = path.join(ROOT, '.run', 'faults', 'kafka');
const OWN_PG_DIR = path.join(ROOT, '.run', 'faults', 'pg');
const OWN_KAFKA_HEAP = ['-Xmx384m', '-Xms128m'];

/** A port outside the ephemeral range, so no client connection takes it while its server is down. */
export async function stablePort(avoid = []) {
  for (;;) {
    const port = 21000 + Math.floor(Math.random() * 9000);
    if (avoid.includes(port)) continue;
    const free = await new Promise((resolve) => {
      const s = net.createServer();
      s.once('error', () => resolve(false));
      s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

/**
 * The steps of the suite's own broker and PostgreSQL (resolving, formatting, starting, stopping) go
 * to .run/faults/infra.log; the console gets the one line per step the suite prints itself.
 * @param {string} name
 */
function infraLog(name) {
  const file = path.join(ROOT, '.run', 'faults', 'infra.log');
  mkdirSync(path.dirname(file), { recursive: true });
  return (/** @type {string} */ msg) => appendFileSync(file, `${new Date().toISOString()} [${name}] ${msg}\n`);
}

/**
 * The suite's own broker, on fresh storage and ports of its own; it can be SIGKILLed (crash) or
 * stopped with SIGTERM (shutdown: a controlled shutdown, its logs flushed and closed) and restarted
 * on the same data.
 */
/**
 * @param {ReturnType<typeof import('../infra/process.mjs').startRun>} run
 * @param {(...args: any[]) => void} log
 */
export async function startOwnKafka(run, log) {
  const base = { rootDir: ROOT, runDir: OWN_KAFKA_DIR, log: infraLog('kafka') };
  // A broker left by a run that was itself SIGKILLed, and its data: this one starts clean.
  await stopKafka({ ...base, signal: 'SIGKILL' });
  rmSync(path.join(OWN_KAFKA_DIR, 'data'), { recursive: true, force: true });
  const port = await stablePort();
  const opts = { ...base, port, controllerPort: await stablePort([port]), heap: OWN_KAFKA_HEAP, keepData: true };
  const pidFile = path.join(OWN_KAFKA_DIR, 'broker.pid');
  const own = () => run.own(readPid(pidFile) ?? undefined, { group: true });
  const stop = run.defer("stop the suite's broker", async () => {
    const pid = readPid(pidFile);
    await stopKafka(base);
    run.disown(pid ?? undefined);
    rmSync(path.join(OWN_KAFKA_DIR, 'data'), { recursive: true, force: true });
  });
  const { brokers } = await ensureKafka(opts);
  own();
  log(`  the suite's own broker is up at ${brokers} (steps in .run/faults/infra.log)`);
  return {
    brokers,
    crash: async () => {
      const pid = readPid(pidFile);
      await stopKafka({ ...base, signal: 'SIGKILL' });
      run.disown(pid ?? undefined);
    },
    /** SIGTERM, as an orchestrator stops a broker for a rolling upgrade (SIGKILL after 20 s); resolves once it exited. */
    shutdown: async () => {
      const pid = readPid(pidFile);
      await stopKafka({ ...base, signal: 'SIGTERM' });
      run.disown(pid ?? undefined);
    },
    restart: async () => {
      await ensureKafka(opts);
      own();
    },
    stop,
  };
}

/**
 * The suite's own embedded PostgreSQL; it can be stopped with -m immediate and restarted on the same
 * data. `durable`: synchronous_commit = on (c); j, which crashes no PostgreSQL, needs only its room
 * (max_connections 200: twenty-two processes open some 90 connections).
 */
/**
 * @param {ReturnType<typeof import('../infra/process.mjs').startRun>} run
 * @param {(...args: any[]) => void} log
 */
export async function startOwnPostgres(run, log, { durable = true } = {}) {
  const base = { rootDir: ROOT, dataDir: OWN_PG_DIR, log: infraLog('postgres') };
  await stopEmbeddedPostgres({ ...base, mode: 'immediate' }); // left by a run that was itself SIGKILLed
  // durable: synchronous_commit = on, as in production; with the dev default (off) a crash loses
  // the last commits PostgreSQL had already acknowledged, and c reports them lost.
  const opts = { ...base, port: await stablePort(), durable };
  const pidFile = path.join(OWN_PG_DIR, 'postmaster.pid');
  // SIGINT is the postmaster's fast shutdown.
  const own = () => run.own(readPid(pidFile) ?? undefined, { signal: 'SIGINT' });
  const stop = run.defer("stop the suite's PostgreSQL", async () => {
    const pid = readPid(pidFile);
    await stopEmbeddedPostgres(base);
    run.disown(pid ?? undefined);
  });
  const { adminUrl } = await ensurePostgres(opts);
  own();
  log(`  the suite's own PostgreSQL is up on port ${opts.port} (steps in .run/faults/infra.log)`);
  return {
    adminUrl,
    crash: async () => {
      const pid = readPid(pidFile);
      await stopEmbeddedPostgres({ ...base, mode: 'immediate' });
      run.disown(pid ?? undefined);
    },
    restart: async () => {
      await ensurePostgres(opts);
      own();
    },
    stop,
  };
}
