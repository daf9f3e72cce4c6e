// `npm run test:faults`: the whole system as real processes on a database and topic prefix of its
// own, driven by a load generator that journals every 2xx, while a fault is injected; then a
// reconciler checks nothing acknowledged was lost or applied twice. Exits 1 if any count is not 0.
//
//   npm run test:faults                 every scenario
//   npm run test:faults -- --quick      the CI subset (d, b-orders, g-orders, a, c; fewer orders)
//   FAULTS_ONLY=a,c                     only these scenarios (ids as in the table of docs/faults.md)
//   FAULTS_ORDERS=120 FAULTS_WORKERS=6  load per scenario
//
//   --no-build                          dist/ is compiled already
//
// b, d, e, f and g only kill or duplicate what the suite itself started, so they run on the shared
// infrastructure (KAFKA_BROKERS / DATABASE_URL). a and c crash a broker or a PostgreSQL: each
// starts one of its own (.run/faults/kafka, .run/faults/pg) on ports of its own.
//
// It exits when done, and stops and removes whatever it started or created — services, its own
// broker and PostgreSQL, each scenario's database, topics and consumer groups — also on ^C or
// SIGTERM (a second one kills at once); a watchdog stops its processes should the suite itself be
// killed. Leftovers of crashed runs older than an hour go at the next start.
import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { build, ensureContractTopics, ensureInfra, logger, ROOT, startService, waitForHttp } from '../stack/common.mjs';
import { freePorts, SERVICES, signSandbox, systemEnv } from '../stack/system.mjs';
import { ensureKafka, stopKafka } from '../infra/kafka.mjs';
import { createDatabase, ensurePostgres, stopEmbeddedPostgres } from '../infra/postgres.mjs';
import { readPid, startRun, stopChild } from '../infra/process.mjs';
import { removeScratch, scratchNames, sweepLeftovers } from '../infra/scratch.mjs';
import { request } from '../bench/load.mjs';
import { ordersOf, reconcile } from './reconcile.mjs';

const log = logger('faults', 1);
const QUICK = process.argv.includes('--quick') || process.env.FAULTS_QUICK === '1';
const ORDERS = Number(process.env.FAULTS_ORDERS ?? (QUICK ? 80 : 150));
const WORKERS = Number(process.env.FAULTS_WORKERS ?? 6);
const ONLY = process.env.FAULTS_ONLY?.split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const SETTLE_MS = 60_000;
/** How long the load may take: every order must have been answered 2xx by then. */
const LOAD_MS = 90_000;
/** How long the crashed broker or PostgreSQL stays down before it is started again. */
const OUTAGE_MS = Number(process.env.FAULTS_OUTAGE_MS ?? 3000);
const OWN_KAFKA_DIR = path.join(ROOT, '.run', 'faults', 'kafka');
const OWN_PG_DIR = path.join(ROOT, '.run', 'faults', 'pg');
const OWN_KAFKA_HEAP = ['-Xmx384m', '-Xms128m'];
const SANDBOX_SECRET = 'faults-sandbox-secret';
const OPS_TOKEN = 'faults-ops-token-' + randomUUID();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The merchant: records every delivery; answers 200 (a scenario may make it fail or slow). */
async function startReceiver() {
  const deliveries = [];
  const state = { mode: 'ok' };
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      if (state.mode === 'down') return res.writeHead(503).end();
      if (state.mode === 'slow') await sleep(2000);
      try {
        const b = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        deliveries.push({ eventId: b.eventId, objectId: b.objectId, sequence: b.sequence, status: b.status });
      } catch {
        /* not ours to judge here; the reconciler sees it as missing */
      }
      res.writeHead(200).end();
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', () => r(undefined)));
  return {
    url: `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/callbacks`,
    deliveries,
    state,
    close: () => new Promise((r) => server.close(r)),
  };
}

/** How long a merchant (or provider) waits for an answer before it gives up and retries. */
const CLIENT_TIMEOUT_MS = 10_000;

/** One HTTP request that gives up after CLIENT_TIMEOUT_MS, as a real client does. */
function requestWithTimeout(agent, url, spec) {
  return Promise.race([
    request(agent, url, spec),
    new Promise((_, reject) => setTimeout(() => reject(new Error('client timeout')), CLIENT_TIMEOUT_MS).unref()),
  ]);
}

/**
 * Sends until answered 2xx: a merchant (or provider) retries no answer, a timeout and a 5xx with
 * the same key. `answers` counts what came back other than a 2xx, by status (or "no answer").
 */
async function untilAnswered(agent, url, spec, deadline, answers) {
  for (;;) {
    let outcome;
    try {
      const res = await requestWithTimeout(agent, url, spec);
      if (res.status >= 200 && res.status < 300) return res;
      if (res.status < 500 && res.status !== 409 && res.status !== 429)
        throw new Error(`${url} → ${res.status} ${res.body.slice(0, 200)}`);
      outcome = String(res.status);
    } catch (e) {
      const err = /** @type {Error} */ (e);
      if (err.message?.includes('→')) throw err;
      outcome = err.message === 'client timeout' ? 'timeout' : 'no answer';
    }
    answers.set(outcome, (answers.get(outcome) ?? 0) + 1);
    if (Date.now() > deadline) return null;
    await sleep(200);
  }
}

// ---------------------------------------------------------------------------------------------
// What the suite started it stops however it ends (tools/infra/process.mjs). Its own broker and
// PostgreSQL are detached (their own session), so a ^C reaches the suite, which stops them in order.

const run = startRun({ name: 'fault suite', log });
const BUILD = !process.argv.includes('--no-build');

/** A port outside the ephemeral range, so no client connection takes it while its server is down. */
async function stablePort(avoid = []) {
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

/** The suite's own broker, on fresh storage and ports of its own; it can be SIGKILLed and restarted on the same data. */
async function startOwnKafka() {
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
    restart: async () => {
      await ensureKafka(opts);
      own();
    },
    stop,
  };
}

/** The suite's own embedded PostgreSQL; it can be stopped with -m immediate and restarted on the same data. */
async function startOwnPostgres() {
  const base = { rootDir: ROOT, dataDir: OWN_PG_DIR, log: infraLog('postgres') };
  await stopEmbeddedPostgres({ ...base, mode: 'immediate' }); // left by a run that was itself SIGKILLed
  // durable: synchronous_commit = on, as in production; with the dev default (off) a crash loses
  // the last commits PostgreSQL had already acknowledged, and c reports them lost.
  const opts = { ...base, port: await stablePort(), durable: true };
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

// ---------------------------------------------------------------------------------------------

const SCENARIOS = [
  { id: 'd', name: 'd: every provider callback three times, concurrently, shuffled', copies: 3 },
  ...['orders', 'gateway', 'callbacks-ingest', 'merchant-callbacks'].map((s) => ({
    id: `b-${s}`,
    name: `b: ${s} killed with SIGKILL mid-batch, restarted`,
    kill: s,
    signal: 'SIGKILL',
  })),
  ...['orders', 'callbacks-ingest'].map((s) => ({
    id: `g-${s}`,
    name: `g: outbox relay of ${s} SIGKILLed between publishing and marking, restarted`,
    failpoint: s,
  })),
  { id: 'a', name: 'a: Kafka broker killed with SIGKILL mid-batch, restarted', crashKafka: true },
  { id: 'c', name: 'c: PostgreSQL stopped with -m immediate mid-batch, restarted', crashPostgres: true },
  ...['orders', 'gateway', 'callbacks-ingest', 'merchant-callbacks'].map((s) => ({
    id: `f-${s}`,
    name: `f: ${s} stopped with SIGTERM mid-batch, restarted`,
    kill: s,
    signal: 'SIGTERM',
  })),
  { id: 'e', name: 'e: merchant endpoint down (503) for a while, then slow', merchant: true },
];
const QUICK_IDS = ['d', 'b-orders', 'g-orders', 'a', 'c'];

async function main() {
  // Never ensureInstalled(): node_modules may be a symlink shared with other checkouts, and npm ci
  // through it would empty theirs.
  const started = Date.now();
  if (BUILD) build();
  const infra = await ensureInfra();
  run.defer('stop the broker and database the suite started', async () => {
    await infra.stop();
    for (const p of infra.processes) run.disown(p.pid);
  });
  for (const p of infra.processes) run.own(p.pid, p);
  const swept = await sweepLeftovers({ brokers: infra.env.KAFKA_BROKERS, databaseUrl: infra.env.DATABASE_URL });
  if (swept) log(swept);
  const logDir = path.join(ROOT, '.run', 'faults');
  mkdirSync(logDir, { recursive: true });
  const ids = ONLY ?? (QUICK ? QUICK_IDS : SCENARIOS.map((s) => s.id));
  const unknown = ids.filter((id) => !SCENARIOS.some((s) => s.id === id));
  if (unknown.length)
    throw new Error(`unknown scenario(s) ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.id).join(', ')}`);
  const chosen = SCENARIOS.filter((s) => ids.includes(s.id));
  log(`${chosen.length} scenario(s), ${ORDERS} orders and ${WORKERS} workers each`);
  const results = [];
  for (const sc of chosen) {
    if (run.finishing) break;
    results.push(await runScenario(sc, infra, logDir));
  }
  console.log(
    '\n| scenario | acknowledged orders | acknowledged callbacks | lost | duplicated | recovery: first success | recovery: settled |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const r of results)
    console.log(
      `| ${r.name} | ${r.orders} | ${r.callbacks} | ${r.lost} | ${r.duplicated} | ${r.firstOk ?? '–'} | ${r.settledIn ?? '–'} |`,
    );
  const failed = results.filter((r) => r.lost || r.duplicated || r.error);
  const took = `${((Date.now() - started) / 1000).toFixed(0)} s`;
  if (failed.length) {
    console.log(`\nFAILED (${took}): ${failed.map((r) => `${r.name}${r.error ? ` (${r.error})` : ''}`).join('; ')}`);
    return 1;
  }
  console.log(`\nall ${results.length} scenarios: 0 lost, 0 duplicated (${took})`);
  return 0;
}

async function runScenario(sc, infra, logDir) {
  const t0 = Date.now();
  log(`— ${sc.name}`);
  const { prefix, database: dbName } = scratchNames('faults');
  /** @type {{ name: string, orders: number, callbacks: number, lost: number, duplicated: number, error?: string, firstOk?: string, settledIn?: string }} */
  const result = { name: sc.name, orders: 0, callbacks: 0, lost: 0, duplicated: 0 };
  /** @type {Awaited<ReturnType<typeof startOwnKafka>> | undefined} */
  let ownKafka;
  /** @type {Awaited<ReturnType<typeof startOwnPostgres>> | undefined} */
  let ownPostgres;
  try {
    if (sc.crashKafka) ownKafka = await startOwnKafka();
    if (sc.crashPostgres) ownPostgres = await startOwnPostgres();
  } catch (err) {
    result.error = `the suite's own ${sc.crashKafka ? 'broker' : 'PostgreSQL'} did not start: ${/** @type {Error} */ (err).message}`;
    log(`  error: ${result.error}`);
    await ownKafka?.stop();
    return result;
  }
  const infraEnv = { ...infra.env, ...(ownKafka ? { KAFKA_BROKERS: ownKafka.brokers } : {}) };
  const adminDbUrl = ownPostgres?.adminUrl ?? infra.env.DATABASE_URL;
  /** @type {Map<string, import('node:child_process').ChildProcess & { logFile?: string }>} */
  const children = new Map();
  /** @type {Awaited<ReturnType<typeof startReceiver>> | undefined} */
  let receiver;
  let finishing = false;
  // However the scenario ends (an interrupt included): its services, merchant, database, topics
  // and groups go, then the broker or PostgreSQL of its own.
  const cleanUp = run.defer(`clean up scenario ${sc.id}`, async () => {
    finishing = true;
    await Promise.all([...children.values()].map((c) => stopChild(c)));
    await receiver?.close();
    const k = await removeScratch({
      brokers: ownKafka ? undefined : infra.env.KAFKA_BROKERS,
      databaseUrl: ownPostgres ? undefined : adminDbUrl,
      prefix,
      database: dbName,
    });
    if (k?.left.length) log(`  consumer groups still busy, left for the next run's sweep: ${k.left.join(', ')}`);
    await ownKafka?.stop();
    await ownPostgres?.stop();
  });
  const dbUrl = await createDatabase(adminDbUrl, dbName);
  await ensureContractTopics(infraEnv.KAFKA_BROKERS, prefix);
  receiver = await startReceiver();
  const ports = await freePorts();
  const env = systemEnv({
    infraEnv,
    dbUrl,
    prefix,
    ports,
    opsToken: OPS_TOKEN,
    sandboxSecret: SANDBOX_SECRET,
    instanceId: 'faults',
  });
  const start = (/** @type {string} */ name, extraEnv = {}) => {
    if (run.finishing) throw new Error('interrupted');
    const logFile = path.join(logDir, `${sc.id}-${name}-${Date.now()}.log`);
    const child = /** @type {import('node:child_process').ChildProcess & { logFile?: string }} */ (
      startService(name, { ...env, ...extraEnv }, { logFile })
    );
    child.logFile = logFile;
    run.own(child.pid);
    child.once('exit', () => run.disown(child.pid));
    children.set(name, child);
    return child;
  };
  const stop = async (/** @type {string} */ name, /** @type {NodeJS.Signals} */ sig) => {
    const c = children.get(name);
    if (c) await stopChild(c, sig);
  };
  const agent = new http.Agent({ keepAlive: true, maxSockets: WORKERS * 3 });
  /** @type {Promise<void> | undefined} */
  let injected;
  try {
    /** @type {number | null} */
    let faultAt = null;
    let failpointFired = false;
    /** @type {string[] | undefined} */
    let failpointBatch;
    for (const [n] of SERVICES) {
      if (n !== sc.failpoint) {
        start(n);
        continue;
      }
      // Armed for about the first third of its events; the restarted process runs without it.
      const armed = start(n, {
        FAULTS_FAILPOINT: 'outbox-after-publish',
        FAULTS_FAILPOINT_AFTER_ROWS: String(Math.floor(ORDERS / 3)),
      });
      armed.once('exit', (code, signal) => {
        if (finishing || run.finishing) return;
        faultAt = Date.now();
        failpointFired = signal === 'SIGKILL';
        // The relay logs the batch it leaves on the broker unmarked; the restarted one must publish it again.
        setTimeout(() => {
          const ids = readFileSync(/** @type {string} */ (armed.logFile), 'utf8').match(
            /failpoint outbox-after-publish: outbox ids ([\d,]+)/,
          )?.[1];
          failpointBatch = ids?.split(',') ?? [];
        }, 500);
        log(`  ${n} exited (${signal ?? `code ${code}`}) at its failpoint; restarting it without`);
        start(n);
      });
    }
    await Promise.all(SERVICES.map(([n]) => waitForHttp(`http://127.0.0.1:${ports[n]}/health`)));
    const gateway = `http://127.0.0.1:${ports.gateway}`;
    const opsApi = `http://127.0.0.1:${ports['gateway-ops']}`;
    const ingest = `http://127.0.0.1:${ports['callbacks-ingest']}/callbacks/sandbox`;
    const ops = { authorization: `Bearer ${OPS_TOKEN}` };
    const company = JSON.parse(
      (
        await request(agent, `${opsApi}/ops/v1/companies`, {
          method: 'POST',
          headers: ops,
          body: { name: 'Faults Company' },
        })
      ).body,
    );
    const shop = JSON.parse(
      (
        await request(agent, `${opsApi}/ops/v1/companies/${company.id}/shops`, {
          method: 'POST',
          headers: ops,
          body: { name: 'Faults Shop', callbackUrl: receiver.url },
        })
      ).body,
    );
    const auth = { authorization: `Bearer ${shop.apiKey}` };

    const journal = { orders: new Map(), callbacks: new Map() };
    const answers = new Map();
    const deadline = Date.now() + LOAD_MS;
    let next = 0;
    let firstOkAfterFault = null;
    const noteOk = () => {
      if (faultAt && !firstOkAfterFault) firstOkAfterFault = Date.now();
    };
    const worker = async () => {
      for (;;) {
        const i = next++;
        if (i >= ORDERS) return;
        if (i === Math.floor(ORDERS / 3) && !faultAt && !sc.failpoint) {
          injected = inject();
          injected.catch(() => undefined); // awaited (and reported) after the load
        }
        const merchantOrderId = `faults-${i}-${randomUUID().slice(0, 8)}`;
        // .99: the sandbox takes the payment and never calls back; the suite sends the callback.
        const res = await untilAnswered(
          agent,
          `${gateway}/order`,
          {
            method: 'POST',
            headers: { ...auth, 'idempotency-key': merchantOrderId },
            body: { order: { merchantOrderId, cost: { amount: '10.99', currency: 'USD' } } },
          },
          deadline,
          answers,
        );
        if (!res) continue;
        const id = JSON.parse(res.body).id;
        journal.orders.set(merchantOrderId, id);
        noteOk();
        const eventId = `faults-${id}`;
        const body = JSON.stringify({
          eventId,
          kind: 'payment',
          reference: id,
          status: 'success',
          amount: '10.99',
          currency: 'USD',
        });
        const copies = Array.from({ length: sc.copies ?? 1 }, () =>
          untilAnswered(
            agent,
            ingest,
            { method: 'POST', headers: { 'x-signature': signSandbox(SANDBOX_SECRET, body) }, body },
            deadline,
            answers,
          ),
        );
        const answered = await Promise.all(copies.sort(() => Math.random() - 0.5));
        if (answered.some(Boolean)) {
          journal.callbacks.set(id, eventId);
          noteOk();
        }
      }
    };
    const inject = async () => {
      faultAt = Date.now();
      if (sc.kill) {
        await stop(sc.kill, sc.signal);
        start(sc.kill);
      } else if (sc.merchant) {
        receiver.state.mode = 'down';
        await sleep(5000);
        receiver.state.mode = 'slow';
        await sleep(5000);
        receiver.state.mode = 'ok';
      } else if (sc.crashKafka || sc.crashPostgres) {
        const own = /** @type {{ crash(): Promise<void>, restart(): Promise<void> }} */ (ownKafka ?? ownPostgres);
        await own.crash();
        await sleep(OUTAGE_MS);
        await own.restart();
        log(`  ${sc.crashKafka ? 'broker' : 'PostgreSQL'} back after ${((Date.now() - faultAt) / 1000).toFixed(1)} s`);
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, worker));
    // The fault itself must have worked (a restart that failed is the scenario's failure).
    await injected;
    if (sc.failpoint && !failpointFired)
      throw new Error(`${sc.failpoint} never reached its failpoint (or did not die of SIGKILL there)`);
    result.orders = journal.orders.size;
    result.callbacks = journal.callbacks.size;
    const settleStart = Date.now();
    let rec;
    for (;;) {
      rec = reconcile({ journal, rows: await ordersOf(dbUrl, shop.id), deliveries: receiver.deliveries });
      if (rec.lost === 0 || Date.now() - settleStart > SETTLE_MS) break;
      await sleep(500);
    }
    // Settled: a little longer, so that late duplicates have a chance to show.
    await sleep(2000);
    rec = reconcile({ journal, rows: await ordersOf(dbUrl, shop.id), deliveries: receiver.deliveries });
    Object.assign(result, { lost: rec.lost, duplicated: rec.duplicated });
    if (faultAt) {
      result.firstOk = firstOkAfterFault ? `${((firstOkAfterFault - faultAt) / 1000).toFixed(1)} s` : 'never';
      result.settledIn = `${((Date.now() - faultAt) / 1000).toFixed(1)} s`;
    }
    // A service that never recovers loses nothing it acknowledged, but it is a failure all the same.
    if (journal.orders.size < ORDERS)
      result.error = `${ORDERS - journal.orders.size} of ${ORDERS} orders never answered 2xx within ${LOAD_MS / 1000} s`;
    if (answers.size)
      log(`  answers other than 2xx (retried): ${[...answers].map(([k, n]) => `${k} ×${n}`).join(', ')}`);
    if (result.error) log(`  error: ${result.error}`);
    if (sc.failpoint) {
      // Evidence the fault really happened where it should: the batch left unmarked was published again.
      const schema = sc.failpoint.replace(/-/g, '_');
      const republished = failpointBatch?.length ? await countPublished(dbUrl, schema, failpointBatch) : 0;
      log(
        `  the killed relay's batch: ${failpointBatch?.length ?? 0} row(s) on the broker unmarked; ${republished} published again after the restart`,
      );
      if (!failpointBatch?.length || republished !== failpointBatch.length)
        result.error = `the batch left unmarked at the failpoint was not published again (${republished} of ${failpointBatch?.length ?? 0})`;
    }
    for (const p of rec.problems.slice(0, 10)) log(`  ${p}`);
    log(
      `  acknowledged ${result.orders} orders, ${result.callbacks} callbacks; lost ${result.lost}, duplicated ${result.duplicated}; ${((Date.now() - t0) / 1000).toFixed(0)} s`,
    );
  } catch (err) {
    result.error = String(/** @type {Error} */ (err)?.message ?? err);
    log(`  error: ${result.error}`);
  } finally {
    finishing = true;
    agent.destroy();
    await injected?.catch(() => undefined);
    await cleanUp();
  }
  return result;
}

async function countPublished(dbUrl, schema, ids) {
  const { createRequire } = await import('node:module');
  const { Client } = createRequire(import.meta.url)('pg');
  const c = new Client({ connectionString: dbUrl });
  await c.connect();
  try {
    const r = await c.query(
      `SELECT count(*)::int AS n FROM "${schema}".outbox WHERE id = ANY($1::bigint[]) AND published_at IS NOT NULL`,
      [ids],
    );
    return r.rows[0].n;
  } finally {
    await c.end();
  }
}

void run.main(main);
