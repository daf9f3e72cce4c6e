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
// j's twenty-two processes take too many connections for a shared PostgreSQL: it runs on one of its own too.
//
// It exits when done, and stops and removes whatever it started or created — services, its own
// broker and PostgreSQL, each scenario's database, topics and consumer groups — also on ^C or
// SIGTERM (a second one kills at once); a watchdog stops its processes should the suite itself be
// killed. Leftovers of crashed runs older than an hour go at the next start.
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { build, ensureContractTopics, ensureInfra, logger, ROOT } from '../stack/common.mjs';
import { ALL_SERVICES, LEDGER_SERVICE, SERVICES, systemEnv } from '../stack/system.mjs';
import { createDatabase } from '../infra/postgres.mjs';
import { startRun } from '../infra/process.mjs';
import { removeScratch, scratchNames, sweepLeftovers } from '../infra/scratch.mjs';
import { createRequest, everyServiceAnswers, loadPlan } from './client.mjs';
import { startReceiver } from './merchant.mjs';
import { newJournal, objectsOf, reconcile } from './reconcile.mjs';
import { booksHold, checkTheBooks } from './books.mjs';
import { newTally, oneObject } from './objects.mjs';
import { fundingAmount, fundShop, openShop } from './shop.mjs';
import { printTable } from './table.mjs';
import { merchantLimitCheck, republishedCheck } from './checks.mjs';
import { injectFault } from './inject.mjs';
import { startOwnKafka, startOwnPostgres } from './own-infra.mjs';
import { scenarioProcesses } from './processes.mjs';
import {
  DEFAULT_PER_SHOP_CONCURRENCY,
  PAIRS_HOLD_MS,
  PAIRS_PER_SHOP_CONCURRENCY,
  QUICK_IDS,
  SCENARIOS,
} from './scenarios.mjs';

const log = logger('faults', 1);
const QUICK = process.argv.includes('--quick') || process.env.FAULTS_QUICK === '1';
const ORDERS = Number(process.env.FAULTS_ORDERS ?? (QUICK ? 80 : 150));
/**
 * Payouts per scenario, and as many P2P transactions: a third of the orders. --quick keeps a-g as they
 * were (orders only, without methods, payouts and P2P: six processes start faster than nine), and
 * h-k, whose every-service check needs them, always run them.
 * @param {import('./scenarios.mjs').Scenario} sc
 */
const transfersOf = (sc) => Number(process.env.FAULTS_TRANSFERS ?? (QUICK && !sc.ops ? 0 : Math.round(ORDERS / 3)));
const WORKERS = Number(process.env.FAULTS_WORKERS ?? 6);
/** Every REFUND_EVERY-th order of the load is refunded REFUND_AMOUNT once paid (0: none). */
const REFUND_EVERY = Number(process.env.FAULTS_REFUND_EVERY ?? 10);
const REFUND_AMOUNT = '1.00';
const ONLY = process.env.FAULTS_ONLY?.split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const SETTLE_MS = 60_000;
/** How long the load may take: every order must have been answered 2xx by then. */
const LOAD_MS = 90_000;
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
const SANDBOX_SECRET = 'faults-sandbox-secret';
const OPS_TOKEN = 'faults-ops-token-' + randomUUID();
const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// What the suite started it stops however it ends (tools/infra/process.mjs). Its own broker and
// PostgreSQL are detached (their own session), so a ^C reaches the suite, which stops them in order.

const run = startRun({ name: 'fault suite', log });
const BUILD = !process.argv.includes('--no-build');

// ---------------------------------------------------------------------------------------------

/**
 * @typedef {{ name: string, ok: string, callbacks: number, lost: number, duplicated: number,
 *   misordered: number, error?: string, firstOk?: string, settledIn?: string, answering?: string,
 *   refused?: number, refunds?: number, books?: import('./books.mjs').Books, seconds?: number }} Result
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
  printTable(results);
  const failed = results.filter((r) => r.lost || r.duplicated || r.misordered || r.error);
  const took = `${((Date.now() - started) / 1000).toFixed(0)} s`;
  if (failed.length) {
    console.log(`\nFAILED (${took}): ${failed.map((r) => `${r.name}${r.error ? ` (${r.error})` : ''}`).join('; ')}`);
    return 1;
  }
  console.log(`\nall ${results.length} scenarios: 0 lost, 0 duplicated, 0 out of order; the books hold (${took})`);
  return 0;
}

/**
 * @param {import('./scenarios.mjs').Scenario} sc
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
    if (sc.crashKafka || sc.restartKafka) ownKafka = await startOwnKafka(run, log);
    starting = 'PostgreSQL';
    if (sc.crashPostgres || sc.pairs) ownPostgres = await startOwnPostgres(run, log, { durable: !sc.pairs });
  } catch (err) {
    result.error = `the suite's own ${starting} did not start: ${/** @type {Error} */ (err).message}`;
    log(`  error: ${result.error}`);
    await ownKafka?.stop();
    return result;
  }
  const infraEnv = { ...infra.env, ...(ownKafka ? { KAFKA_BROKERS: ownKafka.brokers } : {}) };
  const adminDbUrl = ownPostgres?.adminUrl ?? infra.env.DATABASE_URL;

  // The processes: one of every service (two in j), each on ports of its own.
  const transfers = transfersOf(sc);
  // Methods, payouts and P2P run where payouts and P2P flow, and in h-k, which check every service;
  // the ledger always (its books are checked after every scenario).
  const services = transfers > 0 || sc.ops ? ALL_SERVICES : [...SERVICES, LEDGER_SERVICE];
  const all = services === ALL_SERVICES;
  const procs = await scenarioProcesses({ sc, services, logDir, run });
  const { the, base, start, ready, running, endpoints, spread } = procs;

  /** @type {Awaited<ReturnType<typeof startReceiver>> | undefined} */
  let receiver;
  /** @type {Set<import('./processes.mjs').Instance>} processes stopped with SIGSTOP (i-unanswered): continued however the scenario ends */
  const paused = new Set();
  let finishing = false;
  // However the scenario ends (an interrupt included): its services, merchant, database, topics
  // and groups go, then the broker or PostgreSQL of its own.
  const cleanUp = run.defer(`clean up scenario ${sc.id}`, async () => {
    finishing = true;
    for (const inst of paused) inst.child?.kill('SIGCONT');
    await procs.stopAll();
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
    // Ten processes on a PostgreSQL others use too (twenty in j, on one of the suite's own): smaller pools.
    ...(all ? { DATABASE_POOL_MAX: sc.pairs ? '3' : '4' } : {}),
    ...(sc.pairs ? { MERCHANT_CALLBACKS_PER_SHOP_CONCURRENCY: String(PAIRS_PER_SHOP_CONCURRENCY) } : {}),
  };
  procs.setEnv(env);
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
    for (const inst of procs.instances.values()) {
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
    const shop = await openShop({
      agent,
      opsApi: base(the('backoffice')),
      opsToken: OPS_TOKEN,
      callbackUrl: receiver.url,
      methods: all,
      ledger: true,
    });
    const auth = { authorization: `Bearer ${shop.apiKey}` };
    const journal = newJournal();
    /** @type {Map<string, number>} */
    const answers = new Map();
    const plan = loadPlan({ order: ORDERS, payout: transfers, p2p: transfers });
    // Orders completed before the load: its payouts and refunds draw on a balance that covers them.
    const refundsPlanned = REFUND_EVERY > 0 ? Math.ceil(ORDERS / REFUND_EVERY) : 0;
    const amount = fundingAmount({
      payouts: transfers,
      payoutAmount: createRequest('payout', 'x').amount,
      refunds: refundsPlanned,
      refundAmount: REFUND_AMOUNT,
    });
    const fundingT = Date.now();
    const funding = await fundShop({
      agent,
      gateway,
      ingest,
      auth,
      amount,
      sandboxSecret: SANDBOX_SECRET,
      dbUrl,
      shopId: shop.id,
      journal,
      answers,
    });
    log(
      `  the shop funded: order ${funding.orderId} of ${amount} USD available after ${((Date.now() - fundingT) / 1000).toFixed(1)} s`,
    );
    const loadStart = Date.now();
    // Every object must have been answered by LOAD_MS after the start; in h–k, LOAD_MS after the fault's end.
    const deadlineOf = () => {
      if (!sc.ops) return loadStart + LOAD_MS;
      if (faultAt && !faultEndedAt) return Infinity;
      return Math.max(loadStart, faultEndedAt ?? 0) + LOAD_MS;
    };
    let next = 0;
    const tally = newTally();
    const { acked } = tally;
    /** @type {number | null} */
    let firstOkAfterFault = null;
    const objectCtx = {
      agent,
      gateway,
      ingest,
      auth,
      deadlineOf,
      answers,
      journal,
      tally,
      copies: sc.copies ?? 1,
      sandboxSecret: SANDBOX_SECRET,
      refundEvery: REFUND_EVERY,
      refundAmount: REFUND_AMOUNT,
      noteOk: () => {
        if (faultAt && !firstOkAfterFault) firstOkAfterFault = Date.now();
      },
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
        await oneObject(objectCtx, kind, `faults-${kind}-${i}-${randomUUID().slice(0, 8)}`);
      }
    };
    const inject = async () => {
      faultAt = Date.now();
      await injectFault({
        sc,
        procs,
        receiver: /** @type {NonNullable<typeof receiver>} */ (receiver),
        ownKafka,
        ownPostgres,
        brokers: infraEnv.KAFKA_BROKERS,
        prefix,
        paused,
        inFlight: () => tally.inFlight,
        faultAt,
        log,
      });
    };
    await Promise.all(Array.from({ length: WORKERS }, worker));
    tally.unanswered += Math.max(0, plan.length - next);
    const { unanswered, refused } = tally;
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
    Object.assign(result, { refused, refunds: journal.refunds.size });
    // The books: balances as the load's records imply, every posting once, the ledger's invariants.
    const books = await checkTheBooks({ dbUrl, shopId: shop.id, journal });
    result.books = books;
    log(
      `  books: ${['available', 'pending', 'reserved'].map((k) => `${k} ${books.balances[k]} (expected ${books.expected[k]})`).join(', ')} USD; ${Object.entries(
        books.counts,
      )
        .map(([k, n]) => `${k} ${n}`)
        .join(
          ', ',
        )}; postings lost ${books.lost}, doubled ${books.doubled}; invariants ${books.findings.length ? books.findings.slice(0, 3).join('; ') : 'hold'}`,
    );
    if (!booksHold(books)) errors.push(`the books do not hold: ${books.problems.slice(0, 4).join('; ')}`);
    // A service that never recovers loses nothing it acknowledged, but it is a failure all the same.
    if (unanswered)
      errors.push(
        `${unanswered} of ${unanswered + acked.order + acked.payout + acked.p2p} objects never answered 2xx within ${LOAD_MS / 1000} s${sc.ops ? ' of the end of the fault' : ''}`,
      );
    const overLimit = merchantLimitCheck({ receiver, shopId: shop.id, faultAt, perShopLimit, log });
    if (overLimit) errors.push(overLimit);
    if (answers.size)
      log(`  answers other than 2xx (retried): ${[...answers].map(([k, n]) => `${k} ×${n}`).join(', ')}`);
    if (sc.failpoint) {
      const notRepublished = await republishedCheck({ failpoint: sc.failpoint, dbUrl, failpointBatch, log });
      if (notRepublished) errors.push(notRepublished);
    }
    if (errors.length) result.error = errors.join('; ');
    if (result.error) log(`  error: ${result.error}`);
    for (const p of [...rec.problems.slice(0, 10), ...books.problems.slice(0, 10)]) log(`  ${p}`);
    log(
      `  acknowledged ${result.ok} orders / payouts / P2P, ${result.refunds} refunds, ${refused} refused for balance, ${result.callbacks} callbacks; lost ${result.lost}, duplicated ${result.duplicated}, out of order ${result.misordered}; ${((Date.now() - t0) / 1000).toFixed(0)} s`,
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
  result.seconds = Math.round((Date.now() - t0) / 1000);
  return result;
}

void run.main(main);
