// `npm run test:faults`: the whole system as real processes on a database and topic prefix of its
// own, driven by a load generator (orders, payouts and P2P transactions with their provider
// callbacks) that journals every 2xx, while a fault is injected; then a reconciler checks nothing
// acknowledged was lost or applied twice and every object's callbacks reached the merchant in order,
// and the suite checks every service still answers. Exits 1 if any count is not 0.
//
//   npm run test:faults                 every scenario
//   npm run test:faults -- --quick      the CI subset (d, b-orders, g-orders, a, c; fewer orders)
//   FAULTS_ONLY=a,c                     only these scenarios (ids as in the table of docs/faults.md)
//   FAULTS_ORDERS=120 FAULTS_WORKERS=6  load per scenario
//   FAULTS_TRANSFERS=40                 payouts, and as many P2P transactions, per scenario (a third of the
//                                       orders; --quick: none, the scenarios run without the payout and P2P
//                                       services, as before)
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
import { randomBytes, randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { build, ensureContractTopics, ensureInfra, logger, ROOT, startService } from '../stack/common.mjs';
import { ALL_SERVICES, freePort, instanceEnv, SERVICES, systemEnv } from '../stack/system.mjs';
import { ensureKafka, stopKafka } from '../infra/kafka.mjs';
import { createDatabase, ensurePostgres, stopEmbeddedPostgres } from '../infra/postgres.mjs';
import { readPid, startRun, stopChild } from '../infra/process.mjs';
import { removeScratch, scratchNames, sweepLeftovers } from '../infra/scratch.mjs';
import { request } from '../bench/load.mjs';
import {
  createRequest,
  everyServiceAnswers,
  loadPlan,
  providerCallback,
  seedMethods,
  untilAnswered,
} from './client.mjs';
import { startReceiver } from './merchant.mjs';
import { objectsOf, reconcile } from './reconcile.mjs';
import { waitReady } from './services.mjs';

const log = logger('faults', 1);
const QUICK = process.argv.includes('--quick') || process.env.FAULTS_QUICK === '1';
const ORDERS = Number(process.env.FAULTS_ORDERS ?? (QUICK ? 80 : 150));
/**
 * Payouts per scenario, and as many P2P transactions: a third of the orders. --quick keeps its
 * scenarios as they were (orders only, without methods, payouts and P2P: six processes start faster
 * than nine).
 */
const TRANSFERS = Number(process.env.FAULTS_TRANSFERS ?? (QUICK ? 0 : Math.round(ORDERS / 3)));
const WORKERS = Number(process.env.FAULTS_WORKERS ?? 6);
const ONLY = process.env.FAULTS_ONLY?.split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const SETTLE_MS = 60_000;
/** How long the load may take: every order must have been answered 2xx by then. */
const LOAD_MS = 90_000;
/** How long the crashed broker or PostgreSQL stays down before it is started again. */
const OUTAGE_MS = Number(process.env.FAULTS_OUTAGE_MS ?? 3000);
/** How long after its fault every service has to answer again (else the scenario fails). */
const ANSWER_MS = 120_000;
const OWN_KAFKA_DIR = path.join(ROOT, '.run', 'faults', 'kafka');
const OWN_PG_DIR = path.join(ROOT, '.run', 'faults', 'pg');
const OWN_KAFKA_HEAP = ['-Xmx384m', '-Xms128m'];
const SANDBOX_SECRET = 'faults-sandbox-secret';
const OPS_TOKEN = 'faults-ops-token-' + randomUUID();
const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

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

/**
 * @typedef {{ id: string, name: string, copies?: number, kill?: string, signal?: NodeJS.Signals,
 *   failpoint?: string, crashKafka?: boolean, crashPostgres?: boolean, merchant?: boolean }} Scenario
 */

/** @type {Scenario[]} */
const SCENARIOS = [
  { id: 'd', name: 'd: every provider callback three times, concurrently, shuffled', copies: 3 },
  ...['orders', 'gateway', 'callbacks-ingest', 'merchant-callbacks'].map((s) => ({
    id: `b-${s}`,
    name: `b: ${s} killed with SIGKILL mid-batch, restarted`,
    kill: s,
    signal: /** @type {NodeJS.Signals} */ ('SIGKILL'),
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
    signal: /** @type {NodeJS.Signals} */ ('SIGTERM'),
  })),
  { id: 'e', name: 'e: merchant endpoint down (503) for a while, then slow', merchant: true },
];
const QUICK_IDS = ['d', 'b-orders', 'g-orders', 'a', 'c'];
/** merchant-callbacks' own default (MERCHANT_CALLBACKS_PER_SHOP_CONCURRENCY). */
const DEFAULT_PER_SHOP_CONCURRENCY = 16;

/**
 * @typedef {{ name: string, ok: string, callbacks: number, lost: number, duplicated: number,
 *   misordered: number, error?: string, firstOk?: string, settledIn?: string, answering?: string }} Result
 */

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
  log(
    `${chosen.length} scenario(s), ${ORDERS} orders, ${TRANSFERS} payouts, ${TRANSFERS} P2P transactions and ${WORKERS} workers each`,
  );
  /** @type {Result[]} */
  const results = [];
  for (const sc of chosen) {
    if (run.finishing) break;
    results.push(await runScenario(sc, infra, logDir));
  }
  console.log(
    '\n| scenario | acknowledged orders / payouts / P2P | acknowledged callbacks | lost | duplicated | out of order | recovery: first success | recovery: settled | every service answering |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of results)
    console.log(
      `| ${r.name} | ${r.ok} | ${r.callbacks} | ${r.lost} | ${r.duplicated} | ${r.misordered} | ${r.firstOk ?? '–'} | ${r.settledIn ?? '–'} | ${r.answering ?? '–'} |`,
    );
  const failed = results.filter((r) => r.lost || r.duplicated || r.misordered || r.error);
  const took = `${((Date.now() - started) / 1000).toFixed(0)} s`;
  if (failed.length) {
    console.log(`\nFAILED (${took}): ${failed.map((r) => `${r.name}${r.error ? ` (${r.error})` : ''}`).join('; ')}`);
    return 1;
  }
  console.log(`\nall ${results.length} scenarios: 0 lost, 0 duplicated, 0 out of order (${took})`);
  return 0;
}

/**
 * One process of a service (`orders`). A start gives it a new instance id.
 * @typedef {{ key: string, name: string, variable: string, index: number, port: number, opsPort?: number,
 *   child?: import('node:child_process').ChildProcess & { logFile?: string }, instanceId?: string,
 *   starts: number }} Instance
 */

/**
 * @param {Scenario} sc
 * @param {Awaited<ReturnType<typeof ensureInfra>>} infra
 * @param {string} logDir
 * @returns {Promise<Result>}
 */
async function runScenario(sc, infra, logDir) {
  const t0 = Date.now();
  log(`— ${sc.name}`);
  const { prefix, database: dbName } = scratchNames('faults');
  /** @type {Result} */
  const result = { name: sc.name, ok: '0 / 0 / 0', callbacks: 0, lost: 0, duplicated: 0, misordered: 0 };
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

  // The processes: one of every service, each on ports of its own.
  /** @type {Map<string, Instance>} */
  const instances = new Map();
  const transfers = TRANSFERS;
  // Methods, payouts and P2P run where payouts and P2P flow.
  const services = transfers > 0 ? ALL_SERVICES : SERVICES;
  const all = services === ALL_SERVICES;
  for (const [name, variable] of services)
    instances.set(name, { key: name, name, variable, index: 1, port: 0, starts: 0 });
  for (const inst of instances.values()) {
    inst.port = await freePort();
    if (inst.name === 'gateway') inst.opsPort = await freePort();
  }
  const the = (/** @type {string} */ key) => /** @type {Instance} */ (instances.get(key));
  const base = (/** @type {Instance} */ inst) => `http://127.0.0.1:${inst.port}`;

  /** @type {Awaited<ReturnType<typeof startReceiver>> | undefined} */
  let receiver;
  let finishing = false;
  // However the scenario ends (an interrupt included): its services, merchant, database, topics
  // and groups go, then the broker or PostgreSQL of its own.
  const cleanUp = run.defer(`clean up scenario ${sc.id}`, async () => {
    finishing = true;
    await Promise.all([...instances.values()].map((i) => (i.child ? stopChild(i.child) : undefined)));
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
  const perShopLimit = DEFAULT_PER_SHOP_CONCURRENCY;
  const env = {
    ...systemEnv({
      infraEnv,
      dbUrl,
      prefix,
      ports: {
        ...Object.fromEntries(services.map(([n]) => [n, the(n).port])),
        'gateway-ops': /** @type {number} */ (the('gateway').opsPort),
      },
      opsToken: OPS_TOKEN,
      sandboxSecret: SANDBOX_SECRET,
      instanceId: 'faults',
    }),
    // Nine processes on a PostgreSQL others use too: pools of the test stacks' size.
    ...(all ? { DATABASE_POOL_MAX: '4' } : {}),
  };
  /** What one process gets besides `env`: its own ports, a new instance id. */
  const envOf = (/** @type {Instance} */ inst) => ({
    [inst.variable]: String(inst.port),
    ...(inst.opsPort ? { GATEWAY_OPS_HTTP_PORT: String(inst.opsPort) } : {}),
    // New on every start, as a new pod's: `<service>-<index>-<start>-<random>`.
    ...instanceEnv(`${inst.name}-${inst.index}-${inst.starts}-${randomBytes(3).toString('hex')}`),
  });
  const start = (/** @type {string} */ key, extraEnv = {}) => {
    if (run.finishing) throw new Error('interrupted');
    const inst = the(key);
    inst.starts += 1;
    const own = envOf(inst);
    inst.instanceId = own.INSTANCE_ID;
    const logFile = path.join(logDir, `${sc.id}-${key.replace('#', '-')}-${Date.now()}.log`);
    const child = /** @type {import('node:child_process').ChildProcess & { logFile?: string }} */ (
      startService(inst.name, { ...env, ...own, ...extraEnv }, { logFile })
    );
    if (!child) throw new Error(`${inst.name} is not built (dist/apps/${inst.name})`);
    child.logFile = logFile;
    run.own(child.pid);
    child.once('exit', () => run.disown(child.pid));
    inst.child = child;
    return child;
  };
  const stop = async (/** @type {string} */ key, /** @type {NodeJS.Signals} */ sig) => {
    const c = the(key).child;
    if (c) await stopChild(c, sig);
  };
  /** Ready: its HTTP port's readiness answers 200, and the gateway's operators' port's too. */
  const ready = async (/** @type {string} */ key) => {
    const inst = the(key);
    const opts = { child: inst.child, label: key };
    await waitReady(base(inst), opts);
    if (inst.opsPort) await waitReady(`http://127.0.0.1:${inst.opsPort}`, { ...opts, label: `${key} (operators)` });
  };
  const running = () => [...instances.values()];
  /** @returns {import('./client.mjs').Endpoint[]} every listener of the running processes */
  const endpoints = () =>
    running().flatMap((i) => [
      { label: i.key, base: base(i) },
      ...(i.opsPort ? [{ label: `${i.key} (operators)`, base: `http://127.0.0.1:${i.opsPort}` }] : []),
    ]);
  // Where the merchant and the provider send: spread over the running gateways and ingests.
  const spread = (/** @type {string} */ name, /** @type {string} */ suffix) => {
    let n = 0;
    return () => {
      const live = running().filter((i) => i.name === name);
      return base(live[n++ % live.length]) + suffix;
    };
  };
  const agent = new http.Agent({ keepAlive: true, maxSockets: WORKERS * 4 });
  /** @type {Promise<void> | undefined} */
  let injected;
  /** @type {string[]} what went wrong besides losses, duplicates and disorder (result.error) */
  const errors = [];
  /** @type {Promise<import('./client.mjs').Answering> | undefined} from the fault's end: when every service answered again */
  let answeringAgain;
  /** @type {((until: number) => Promise<import('./client.mjs').Answering>) | undefined} set once the shop exists */
  let probeEverything;
  try {
    /** @type {number | null} */
    let faultAt = null;
    /** @type {number | null} when the fault was over: the last process restarted */
    let faultEndedAt = null;
    let failpointFired = false;
    /** @type {string[] | undefined} */
    let failpointBatch;
    for (const inst of instances.values()) {
      if (inst.key !== sc.failpoint) {
        start(inst.key);
        continue;
      }
      // Armed for about the first third of its events; the restarted process runs without it.
      const armed = start(inst.key, {
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
        log(`  ${inst.key} exited (${signal ?? `code ${code}`}) at its failpoint; restarting it without`);
        start(inst.key);
        faultEndedAt = Date.now();
        answeringAgain = probeEverything?.(faultEndedAt + ANSWER_MS);
      });
    }
    await Promise.all(running().map((i) => ready(i.key)));
    log(`  ${running().length} processes ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const gateway = spread('gateway', '');
    const ingest = spread('callbacks-ingest', '/callbacks/sandbox');
    const opsApi = `http://127.0.0.1:${the('gateway').opsPort}`;
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
    if (!shop.apiKey) throw new Error(`creating the shop failed: ${JSON.stringify(shop).slice(0, 300)}`);
    if (all) await seedMethods(agent, opsApi, ops, shop.id);
    const auth = { authorization: `Bearer ${shop.apiKey}` };

    /** @type {import('./reconcile.mjs').Journal} */
    const journal = { order: new Map(), payout: new Map(), p2p: new Map(), callbacks: new Map() };
    /** @type {Map<string, number>} */
    const answers = new Map();
    const loadStart = Date.now();
    // Every object must have been answered by LOAD_MS after the start.
    const deadlineOf = () => loadStart + LOAD_MS;
    const plan = loadPlan({ order: ORDERS, payout: transfers, p2p: transfers });
    let next = 0;
    /** What the load had answered 2xx, by kind, and how many of its objects never were. */
    const acked = { order: 0, payout: 0, p2p: 0 };
    let unanswered = 0;
    /** @type {number | null} */
    let firstOkAfterFault = null;
    const noteOk = () => {
      if (faultAt && !firstOkAfterFault) firstOkAfterFault = Date.now();
    };
    probeEverything = (until) =>
      everyServiceAnswers({
        transfers: all,
        agent,
        endpoints: endpoints(),
        gateways: running()
          .filter((i) => i.name === 'gateway')
          .map(base),
        shopId: shop.id,
        auth,
        journal,
        until,
      });
    const worker = async () => {
      for (;;) {
        // Past the deadline the rest of the plan is not sent: counted as never answered.
        if (Date.now() > deadlineOf()) return;
        const i = next++;
        if (i >= plan.length) return;
        if (i === Math.floor(plan.length / 3) && !faultAt && !sc.failpoint) {
          injected = inject().finally(() => {
            faultEndedAt = Date.now();
            answeringAgain = probeEverything?.(faultEndedAt + ANSWER_MS);
          });
          injected.catch(() => undefined); // awaited (and reported) after the load
        }
        const kind = plan[i];
        const merchantId = `faults-${kind}-${i}-${randomUUID().slice(0, 8)}`;
        const { path: route, body } = createRequest(kind, merchantId);
        const res = await untilAnswered(
          agent,
          () => gateway() + route,
          { method: 'POST', headers: { ...auth, 'idempotency-key': merchantId }, body },
          deadlineOf,
          answers,
        );
        if (!res) {
          unanswered += 1;
          continue;
        }
        const id = JSON.parse(res.body).id;
        journal[kind].set(merchantId, id);
        acked[kind] += 1;
        noteOk();
        const callback = providerCallback(kind, id, SANDBOX_SECRET);
        const sent = Array.from({ length: sc.copies ?? 1 }, () =>
          untilAnswered(
            agent,
            ingest,
            { method: 'POST', headers: callback.headers, body: callback.body },
            deadlineOf,
            answers,
          ),
        );
        const answered = await Promise.all(sent.sort(() => Math.random() - 0.5));
        if (answered.some(Boolean)) {
          journal.callbacks.set(id, callback.eventId);
          noteOk();
        }
      }
    };
    const inject = async () => {
      faultAt = Date.now();
      if (sc.kill) {
        await stop(sc.kill, /** @type {NodeJS.Signals} */ (sc.signal));
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
    unanswered += Math.max(0, plan.length - next);
    log(
      `  load: ${acked.order + acked.payout + acked.p2p + unanswered} object(s) in ${((Date.now() - loadStart) / 1000).toFixed(1)} s`,
    );
    // The fault itself must have worked (a restart that failed is the scenario's failure).
    await injected;
    if (sc.failpoint && !failpointFired)
      throw new Error(`${sc.failpoint} never reached its failpoint (or did not die of SIGKILL there)`);
    // Scenarios without a fault (d), or whose fault came from the process itself (g): probed now.
    answeringAgain ??= probeEverything(Date.now() + ANSWER_MS);
    const since = faultEndedAt ?? faultAt;
    const again = await answeringAgain;
    if (again.at && since) result.answering = `${(Math.max(0, again.at - since) / 1000).toFixed(1)} s`;
    else if (!again.at) {
      result.answering = 'never';
      errors.push(`not every service answered within ${ANSWER_MS / 1000} s: ${again.failures.slice(0, 4).join('; ')}`);
    }
    const settle = async () => {
      const settleStart = Date.now();
      for (;;) {
        const rec = reconcile({ journal, rows: await objectsOf(dbUrl, shop.id), deliveries: receiver.deliveries });
        if (rec.lost === 0 || Date.now() - settleStart > SETTLE_MS) return rec;
        await sleep(500);
      }
    };
    await settle();
    if (faultAt) {
      result.firstOk = firstOkAfterFault ? `${((firstOkAfterFault - faultAt) / 1000).toFixed(1)} s` : 'never';
      result.settledIn = `${((Date.now() - faultAt) / 1000).toFixed(1)} s`;
    }
    // Settled: a little longer, so that late duplicates have a chance to show.
    await sleep(2000);
    const rec = reconcile({ journal, rows: await objectsOf(dbUrl, shop.id), deliveries: receiver.deliveries });
    Object.assign(result, { lost: rec.lost, duplicated: rec.duplicated, misordered: rec.misordered });
    result.ok = `${acked.order} / ${acked.payout} / ${acked.p2p}`;
    result.callbacks = journal.callbacks.size;
    // A service that never recovers loses nothing it acknowledged, but it is a failure all the same.
    if (unanswered)
      errors.push(
        `${unanswered} of ${unanswered + acked.order + acked.payout + acked.p2p} objects never answered 2xx within ${LOAD_MS / 1000} s`,
      );
    const maxPerShop = Math.max(0, ...receiver.maxInFlight.values());
    const maxAt = receiver.maxAt.get(shop.id);
    const off = maxAt && faultAt ? (maxAt - faultAt) / 1000 : undefined;
    const when =
      off === undefined ? '' : `, first ${Math.abs(off).toFixed(1)} s ${off < 0 ? 'before' : 'after'} the fault`;
    log(`  merchant: at most ${maxPerShop} callback(s) of the shop in flight at once${when} (limit ${perShopLimit})`);
    if (maxPerShop > perShopLimit)
      errors.push(
        `the merchant had ${maxPerShop} callbacks of one shop in flight at once; the limit is ${perShopLimit}`,
      );
    if (answers.size)
      log(`  answers other than 2xx (retried): ${[...answers].map(([k, n]) => `${k} ×${n}`).join(', ')}`);
    if (sc.failpoint) {
      // Evidence the fault really happened where it should: the batch left unmarked was published again.
      const schema = sc.failpoint.replace(/-/g, '_');
      const republished = failpointBatch?.length ? await countPublished(dbUrl, schema, failpointBatch) : 0;
      log(
        `  the killed relay's batch: ${failpointBatch?.length ?? 0} row(s) on the broker unmarked; ${republished} published again after the restart`,
      );
      if (!failpointBatch?.length || republished !== failpointBatch.length)
        errors.push(
          `the batch left unmarked at the failpoint was not published again (${republished} of ${failpointBatch?.length ?? 0})`,
        );
    }
    if (errors.length) result.error = errors.join('; ');
    if (result.error) log(`  error: ${result.error}`);
    for (const p of rec.problems.slice(0, 10)) log(`  ${p}`);
    log(
      `  acknowledged ${result.ok} orders / payouts / P2P, ${result.callbacks} callbacks; lost ${result.lost}, duplicated ${result.duplicated}, out of order ${result.misordered}; ${((Date.now() - t0) / 1000).toFixed(0)} s`,
    );
  } catch (err) {
    result.error = [...errors, String(/** @type {Error} */ (err)?.message ?? err)].join('; ');
    log(`  error: ${result.error}`);
  } finally {
    finishing = true;
    agent.destroy();
    await injected?.catch(() => undefined);
    await answeringAgain?.catch(() => undefined);
    await cleanUp();
  }
  return result;
}

/**
 * @param {string} dbUrl
 * @param {string} schema
 * @param {string[]} ids
 */
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
