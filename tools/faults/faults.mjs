// `npm run test:faults`: the whole system as real processes on a database and topic prefix of its
// own, driven by a load generator (orders, payouts and P2P transactions with their provider
// callbacks) that journals every 2xx, while a fault is injected; then a reconciler checks nothing
// acknowledged was lost or applied twice and every object's callbacks reached the merchant in order,
// and the suite checks every service still answers. Exits 1 if any count is not 0.
//
//   npm run test:faults                 every scenario
//   npm run test:faults -- --quick      the CI subset (d, b-orders, g-orders, a, c, h; fewer orders)
//   FAULTS_ONLY=a,c                     only these scenarios (ids as in the table of docs/faults.md)
//   FAULTS_ORDERS=120 FAULTS_WORKERS=6  load per scenario
//   FAULTS_TRANSFERS=40                 payouts, and as many P2P transactions, per scenario (a third of the
//                                       orders; --quick: only in h–k, the other scenarios run without the
//                                       payout and P2P services, as before)
//   FAULTS_METADATA_MAX_AGE_MS=10000    the services' Kafka metadata refresh (KAFKA_METADATA_MAX_AGE_MS; quick: 5000)
//
//   --no-build                          dist/ is compiled already
//
// b, d, e, f, g, h and i only kill, restart or duplicate what the suite itself started, so they run
// on the shared infrastructure (KAFKA_BROKERS / DATABASE_URL). a, c and k stop a broker or a
// PostgreSQL: each starts one of its own (.run/faults/kafka, .run/faults/pg) on ports of its own;
// j's eighteen processes take too many connections for a shared PostgreSQL: it runs on one of its own too.
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
import { ALL_SERVICES, instanceEnv, SERVICES, systemEnv } from '../stack/system.mjs';
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
import { deleteTopics, gatewayReplyTopics, waitReady } from './services.mjs';

const log = logger('faults', 1);
const QUICK = process.argv.includes('--quick') || process.env.FAULTS_QUICK === '1';
const ORDERS = Number(process.env.FAULTS_ORDERS ?? (QUICK ? 80 : 150));
/**
 * Payouts per scenario, and as many P2P transactions: a third of the orders. --quick keeps a-g as they
 * were (orders only, without methods, payouts and P2P: six processes start faster than nine), and
 * h-k, whose every-service check needs them, always run them.
 * @param {Scenario} sc
 */
const transfersOf = (sc) => Number(process.env.FAULTS_TRANSFERS ?? (QUICK && !sc.ops ? 0 : Math.round(ORDERS / 3)));
const WORKERS = Number(process.env.FAULTS_WORKERS ?? 6);
const ONLY = process.env.FAULTS_ONLY?.split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const SETTLE_MS = 60_000;
/** How long the load may take: every order must have been answered 2xx by then. */
const LOAD_MS = 90_000;
/** How long the crashed broker or PostgreSQL stays down before it is started again. */
const OUTAGE_MS = Number(process.env.FAULTS_OUTAGE_MS ?? 3000);
/**
 * The services' Kafka metadata refresh (KAFKA_METADATA_MAX_AGE_MS; kafkajs' default is 5 minutes).
 * Short, so that a scenario can wait past two refreshes: a client that still holds metadata of a
 * topic deleted or moved under it finds out at its next refresh, not before. --quick: 5 s, which
 * takes 10 s off h inside npm test.
 */
const METADATA_MAX_AGE_MS = Number(process.env.FAULTS_METADATA_MAX_AGE_MS ?? (QUICK ? 5000 : 10_000));
/** How long after its fault every service has to answer again (else the scenario fails). */
const ANSWER_MS = 120_000;
/** After two metadata refreshes: how long each probe may retry (a 503 or two is no failure, a wedge is). */
const STILL_ANSWERS_MS = 20_000;
/** While a long fault (h, i, j, k) lasts beyond the planned load, each worker sends one more object per PACE_MS. */
const PACE_MS = 1000;
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

/**
 * The suite's own broker, on fresh storage and ports of its own; it can be SIGKILLed (crash) or
 * stopped with SIGTERM (shutdown: a controlled shutdown, its logs flushed and closed) and restarted
 * on the same data.
 */
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
 * (max_connections 200: eighteen processes open some 80 connections).
 */
async function startOwnPostgres({ durable = true } = {}) {
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

// ---------------------------------------------------------------------------------------------

/**
 * @typedef {{ id: string, name: string, copies?: number, kill?: string, signal?: NodeJS.Signals,
 *   failpoint?: string, crashKafka?: boolean, crashPostgres?: boolean, merchant?: boolean,
 *   rolling?: boolean, replyTopicDeleted?: boolean, unanswered?: boolean, pairs?: boolean,
 *   restartKafka?: boolean, ops?: boolean }} Scenario
 *   ops: an operations scenario (h–k): the load lasts as long as the fault, and every service must
 *   still answer past two Kafka metadata refreshes after it.
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
  {
    id: 'h',
    name: 'h: rolling restart of every service (SIGTERM, new instance id, ready before the next)',
    rolling: true,
    ops: true,
  },
  {
    id: 'i-reply-topic',
    name: "i: the gateway's reply topic deleted with replies in flight, a new gateway instance asks",
    replyTopicDeleted: true,
    ops: true,
  },
  {
    id: 'i-unanswered',
    name: 'i: gateway SIGKILLed with requests unanswered, restarted with a new instance id',
    unanswered: true,
    ops: true,
  },
  {
    id: 'j',
    name: 'j: two instances of every service, one of each pair SIGKILLed mid-load, restarted',
    pairs: true,
    ops: true,
  },
  { id: 'k', name: 'k: Kafka broker stopped with SIGTERM mid-load, restarted', restartKafka: true, ops: true },
];
const QUICK_IDS = ['d', 'b-orders', 'g-orders', 'a', 'c', 'h'];

/** The domain services the gateway asks over Kafka; i-unanswered stops them (SIGSTOP) so that requests wait. */
const REPLYING = ['orders', 'payouts', 'p2p', 'methods'];
/** The services that send to the provider: in j, instance n of each sends to sandbox n. */
const SENDING = ['orders', 'payouts', 'p2p'];
/** j: a per-shop limit low enough for the load to reach it, and a merchant that holds each answer a little. */
const PAIRS_PER_SHOP_CONCURRENCY = 4;
const PAIRS_HOLD_MS = 25;
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
    `${chosen.length} scenario(s), ${ORDERS} orders and ${WORKERS} workers each; payouts and P2P transactions: ${[...new Set(chosen.map(transfersOf))].join(' or ')} of each`,
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
 * One process of a service: `orders`, or `orders#2` for the second of a pair (j), `gateway#2` for
 * the instance that takes over in i-reply-topic. A start gives it a new instance id.
 * @typedef {{ key: string, name: string, variable: string, index: number, port: number,
 *   child?: import('node:child_process').ChildProcess & { logFile?: string }, instanceId?: string,
 *   starts: number, standby?: boolean, retired?: boolean }} Instance
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
  let starting = 'broker';
  try {
    if (sc.crashKafka || sc.restartKafka) ownKafka = await startOwnKafka();
    starting = 'PostgreSQL';
    if (sc.crashPostgres || sc.pairs) ownPostgres = await startOwnPostgres({ durable: !sc.pairs });
  } catch (err) {
    result.error = `the suite's own ${starting} did not start: ${/** @type {Error} */ (err).message}`;
    log(`  error: ${result.error}`);
    await ownKafka?.stop();
    return result;
  }
  const infraEnv = { ...infra.env, ...(ownKafka ? { KAFKA_BROKERS: ownKafka.brokers } : {}) };
  const adminDbUrl = ownPostgres?.adminUrl ?? infra.env.DATABASE_URL;

  // The processes: one of every service (two in j), each on ports of its own.
  /** @type {Map<string, Instance>} */
  const instances = new Map();
  const copies = sc.pairs ? 2 : 1;
  const transfers = transfersOf(sc);
  // Methods, payouts and P2P run where payouts and P2P flow, and in h-k, which check every service.
  const services = transfers > 0 || sc.ops ? ALL_SERVICES : SERVICES;
  const all = services === ALL_SERVICES;
  for (const [name, variable] of services)
    for (let index = 1; index <= copies; index++) {
      const key = index === 1 ? name : `${name}#${index}`;
      instances.set(key, { key, name, variable, index, port: 0, starts: 0 });
    }
  // i-reply-topic: the gateway instance that takes over once the first one's reply topic is gone.
  if (sc.replyTopicDeleted)
    instances.set('gateway#2', {
      key: 'gateway#2',
      name: 'gateway',
      variable: 'GATEWAY_HTTP_PORT',
      index: 2,
      port: 0,
      starts: 0,
      standby: true,
    });
  // Outside the ephemeral range, as the own broker's: a port the system handed out and took back
  // (freePort) was once taken by some client's socket before the gateway bound it (EADDRINUSE, e).
  /** @type {number[]} */
  const taken = [];
  const portOf = async () => {
    const port = await stablePort(taken);
    taken.push(port);
    return port;
  };
  for (const inst of instances.values()) inst.port = await portOf();
  const the = (/** @type {string} */ key) => /** @type {Instance} */ (instances.get(key));
  const base = (/** @type {Instance} */ inst) => `http://127.0.0.1:${inst.port}`;

  /** @type {Awaited<ReturnType<typeof startReceiver>> | undefined} */
  let receiver;
  /** @type {Set<Instance>} processes stopped with SIGSTOP (i-unanswered): continued however the scenario ends */
  const paused = new Set();
  let finishing = false;
  // However the scenario ends (an interrupt included): its services, merchant, database, topics
  // and groups go, then the broker or PostgreSQL of its own.
  const cleanUp = run.defer(`clean up scenario ${sc.id}`, async () => {
    finishing = true;
    for (const inst of paused) inst.child?.kill('SIGCONT');
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
  if (sc.pairs) receiver.state.holdMs = PAIRS_HOLD_MS;
  const perShopLimit = sc.pairs ? PAIRS_PER_SHOP_CONCURRENCY : DEFAULT_PER_SHOP_CONCURRENCY;
  const env = {
    ...systemEnv({
      infraEnv,
      dbUrl,
      prefix,
      ports: Object.fromEntries(services.map(([n]) => [n, the(n).port])),
      opsToken: OPS_TOKEN,
      sandboxSecret: SANDBOX_SECRET,
      instanceId: 'faults',
      metadataMaxAgeMs: METADATA_MAX_AGE_MS,
    }),
    // Nine processes on a PostgreSQL others use too (eighteen in j, on one of the suite's own): smaller pools.
    ...(all ? { DATABASE_POOL_MAX: sc.pairs ? '3' : '4' } : {}),
    ...(sc.pairs ? { MERCHANT_CALLBACKS_PER_SHOP_CONCURRENCY: String(PAIRS_PER_SHOP_CONCURRENCY) } : {}),
  };
  /** What one process gets besides `env`: its own ports, sandbox and ingest of the same index, a new instance id. */
  const envOf = (/** @type {Instance} */ inst) => {
    const peer = (/** @type {string} */ name) =>
      instances.get(inst.index === 1 ? name : `${name}#${inst.index}`) ?? the(name);
    return {
      [inst.variable]: String(inst.port),
      ...(SENDING.includes(inst.name) ? { SANDBOX_PROVIDER_URL: base(peer('provider-sandbox')) } : {}),
      ...(inst.name === 'provider-sandbox'
        ? { SANDBOX_CALLBACKS_URL: `${base(peer('callbacks-ingest'))}/callbacks/sandbox` }
        : {}),
      ...(inst.name === 'checkout' ? { CHECKOUT_PUBLIC_URL: base(inst) } : {}),
      // New on every start, as a new pod's: `<service>-<index>-<start>-<random>`.
      ...instanceEnv(`${inst.name}-${inst.index}-${inst.starts}-${randomBytes(3).toString('hex')}`),
    };
  };
  const start = (/** @type {string} */ key, extraEnv = {}) => {
    if (run.finishing) throw new Error('interrupted');
    const inst = the(key);
    inst.starts += 1;
    inst.standby = false;
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
  /** Ready: its HTTP port's readiness answers 200. */
  const ready = async (/** @type {string} */ key) => {
    const inst = the(key);
    const opts = { child: inst.child, label: key };
    await waitReady(base(inst), opts);
  };
  const running = () => [...instances.values()].filter((i) => !i.standby && !i.retired);
  /** @returns {import('./client.mjs').Endpoint[]} every listener of the running processes */
  const endpoints = () => running().map((i) => ({ label: i.key, base: base(i) }));
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
    /** @type {number | null} when the fault was over: the last process restarted (and, in h–k, ready) */
    let faultEndedAt = null;
    let failpointFired = false;
    /** @type {string[] | undefined} */
    let failpointBatch;
    for (const inst of instances.values()) {
      if (inst.standby) continue;
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
    const opsApi = base(the('backoffice'));
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
    // Every object must have been answered by LOAD_MS after the start; in h–k, LOAD_MS after the fault's end.
    const deadlineOf = () => {
      if (!sc.ops) return loadStart + LOAD_MS;
      if (faultAt && !faultEndedAt) return Infinity;
      return Math.max(loadStart, faultEndedAt ?? 0) + LOAD_MS;
    };
    const plan = loadPlan({ order: ORDERS, payout: transfers, p2p: transfers });
    let next = 0;
    /** What the load had answered 2xx, by kind, and how many of its objects never were. */
    const acked = { order: 0, payout: 0, p2p: 0 };
    let unanswered = 0;
    /** Requests to the gateway sent and not answered yet (i: how many the fault caught). */
    let inFlight = 0;
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
        if (i >= plan.length) {
          // h–k: the load goes on, slower, as long as the fault does.
          if (!sc.ops || !injected || faultEndedAt) return;
          await sleep(PACE_MS);
        }
        if (i === Math.floor(plan.length / 3) && !faultAt && !sc.failpoint) {
          injected = inject().finally(() => {
            faultEndedAt = Date.now();
            answeringAgain = probeEverything?.(faultEndedAt + ANSWER_MS);
          });
          injected.catch(() => undefined); // awaited (and reported) after the load
        }
        const kind = plan[i % plan.length];
        const merchantId = `faults-${kind}-${i}-${randomUUID().slice(0, 8)}`;
        const { path: route, body } = createRequest(kind, merchantId);
        inFlight += 1;
        const res = await untilAnswered(
          agent,
          () => gateway() + route,
          { method: 'POST', headers: { ...auth, 'idempotency-key': merchantId }, body },
          deadlineOf,
          answers,
        ).finally(() => (inFlight -= 1));
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
      } else if (sc.restartKafka) {
        const own = /** @type {NonNullable<typeof ownKafka>} */ (ownKafka);
        await own.shutdown();
        const down = Date.now();
        log(`  broker stopped (SIGTERM) in ${((down - faultAt) / 1000).toFixed(1)} s; down for ${OUTAGE_MS} ms`);
        await sleep(OUTAGE_MS);
        await own.restart();
        log(`  broker back after ${((Date.now() - faultAt) / 1000).toFixed(1)} s`);
      } else if (sc.rolling) {
        for (const inst of running()) {
          const t = Date.now();
          await stop(inst.key, 'SIGTERM');
          const stopped = Date.now();
          // stopChild's SIGKILL after 10 s: the process did not finish its shutdown.
          const how = inst.child?.signalCode === 'SIGKILL' ? 'still running 10 s after SIGTERM, SIGKILLed' : 'exited';
          start(inst.key);
          await ready(inst.key);
          log(
            `  ${inst.key}: SIGTERM, ${how} after ${((stopped - t) / 1000).toFixed(1)} s; ready again as ${inst.instanceId} after ${((Date.now() - stopped) / 1000).toFixed(1)} s`,
          );
        }
      } else if (sc.replyTopicDeleted) {
        const brokers = infraEnv.KAFKA_BROKERS;
        const old = the('gateway');
        const topics = await gatewayReplyTopics(brokers, prefix, /** @type {string} */ (old.instanceId));
        if (!topics.length) throw new Error(`no reply topic of the gateway (${old.instanceId}) to delete`);
        const caught = inFlight;
        await deleteTopics(brokers, topics);
        log(`  deleted ${topics.join(', ')} with ${caught} request(s) in flight`);
        start('gateway#2');
        await ready('gateway#2');
        // The merchants' requests go to the new instance from now on; the old one is stopped.
        old.retired = true;
        await stop('gateway', 'SIGTERM');
        log(
          `  gateway#2 (${the('gateway#2').instanceId}) ready and taking the load ${((Date.now() - faultAt) / 1000).toFixed(1)} s after the deletion; the first gateway stopped`,
        );
      } else if (sc.unanswered) {
        // The replying services stop (SIGSTOP) for a moment: the gateway's requests to them wait unanswered.
        for (const name of REPLYING) {
          the(name).child?.kill('SIGSTOP');
          paused.add(the(name));
        }
        await sleep(1500);
        const caught = inFlight;
        await stop('gateway', 'SIGKILL');
        for (const inst of paused) inst.child?.kill('SIGCONT');
        paused.clear();
        log(`  gateway SIGKILLed with ${caught} request(s) unanswered (${REPLYING.join(', ')} paused 1.5 s)`);
        start('gateway');
        await ready('gateway');
        log(
          `  gateway ready again as ${the('gateway').instanceId} ${((Date.now() - faultAt) / 1000).toFixed(1)} s after the kill`,
        );
      } else if (sc.pairs) {
        const victims = running().filter((i) => i.index === 1);
        await Promise.all(victims.map((v) => stop(v.key, 'SIGKILL')));
        log(`  SIGKILLed ${victims.map((v) => v.key).join(', ')}; starting them again`);
        for (const v of victims) start(v.key);
        await Promise.all(victims.map((v) => ready(v.key)));
        log(`  all back and ready ${((Date.now() - faultAt) / 1000).toFixed(1)} s after the kill`);
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
    if (sc.ops && since && again.at) {
      // Past two metadata refreshes of every client: a service wedged on metadata it held from before
      // the fault (a topic deleted or moved under it) shows now.
      const past = since + 2 * METADATA_MAX_AGE_MS + 1000;
      if (past > Date.now()) await sleep(past - Date.now());
      const still = await probeEverything(Date.now() + STILL_ANSWERS_MS);
      if (still.at)
        log(
          `  every service still answers ${((Date.now() - since) / 1000).toFixed(0)} s after the fault (past two metadata refreshes of ${METADATA_MAX_AGE_MS / 1000} s)`,
        );
      else
        errors.push(
          `past two metadata refreshes after the fault, not every service answers: ${still.failures.slice(0, 4).join('; ')}`,
        );
      await settle(); // the probes' own objects too
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
        `${unanswered} of ${unanswered + acked.order + acked.payout + acked.p2p} objects never answered 2xx within ${LOAD_MS / 1000} s${sc.ops ? ' of the end of the fault' : ''}`,
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
