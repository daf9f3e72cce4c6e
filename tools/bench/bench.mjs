// `npm run bench`: starts the whole stack as separate processes on a database and topic prefix of
// its own, drives create-order requests and provider callbacks at rising concurrency through the
// real gateway and callbacks-ingest, and prints throughput, latency and peak memory — next to the
// ceilings of the same machine measured in the same run (pgbench with the same statements per
// order, and Kafka's own producer at full speed). Figures only: nothing here asserts a target.
//
//   BENCH_LEVELS=8,32,64   concurrency levels        BENCH_SECONDS=10   seconds per phase
//   BENCH_WRITE_DOCS=0     do not update docs/performance.md
//   BENCH_METRICS_COST=0   skip the with/without-metrics CPU comparison (tools/bench/metrics-cost.mjs)
//   BENCH_CPU_PROFILE=1    V8 CPU profiles of every service in .run/bench/profiles/ (see tools/bench/profile-summary.mjs)
//   BENCH_CEILINGS=0       skip the pgbench and Kafka producer ceilings (=postgres: only pgbench's)
//   BENCH_CEILING_SHOPS=n  pgbench's clients share n shops (default: one shop per client; 1 is the
//                          bench's own single-shop queue, see tools/bench/order-path.sql)
//   BENCH_QUERY_LOG=1      every service's statements (text, no parameters) in .run/bench/queries/<service>.sql
//   BENCH_WARMUP_SECONDS=15 whole order lives at concurrency 32 before the first level (0: none)
//   BENCH_SOAK_SECONDS=300 the soak phase after the levels: orders' lives at 70 % of the best orders/s
//                          (BENCH_SOAK_RATE=n orders/s instead), memory and consumer lag every
//                          BENCH_SOAK_SAMPLE_SECONDS=30 s; 0 skips it
//   --smoke                one level of 4 for 1 s, a 2-s soak, no ceilings, docs untouched (what the
//                          clean-up test runs)
//   --no-build             dist/ is compiled already
//
// It exits when done (0, or 1 when a step failed), and stops and removes whatever it started or
// created — services, a broker or PostgreSQL it started, its database, topics and consumer groups
// — also on ^C or SIGTERM (a second one kills at once); a watchdog stops its processes should the
// bench itself be killed. Leftovers of crashed runs older than an hour go at the next start.
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import {
  build,
  ensureContractTopics,
  ensureInfra,
  ensureInstalled,
  logger,
  ROOT,
  startService,
  waitForHttp,
} from '../stack/common.mjs';
import { createDatabase } from '../infra/postgres.mjs';
import { startRun, stopChild } from '../infra/process.mjs';
import { removeScratch, scratchNames, sweepLeftovers } from '../infra/scratch.mjs';
import { kafkaCeiling, postgresCeiling } from './ceilings.mjs';
import { runClosedLoop, Latencies } from './load.mjs';
import { peakRssMb, rssMb } from './memory.mjs';
import {
  QUERY_COUNTER,
  queriesPer,
  queriesTotal,
  queryCounterSocket,
  queryCounts,
  resetQueryCounters,
} from './queries.mjs';
import { consumerLag, pendingDeliveries } from './backlog.mjs';
import { runSoak } from './soak.mjs';
import { cpuDelta, cpuSnapshot, writeCallsSnapshot } from './cpu.mjs';
import { roundTripLine, roundTrips } from './round-trip.mjs';
import { measureMetricsCost, metricsCostLine } from './metrics-cost.mjs';
import { freePorts, SERVICES, signSandbox as sign, systemEnv } from '../stack/system.mjs';

const log = logger('bench', 1);
/** --smoke: the smallest run that still goes through every step (the clean-up test runs it). */
const SMOKE = process.argv.includes('--smoke');
const LEVELS = (process.env.BENCH_LEVELS ?? (SMOKE ? '4' : '8,32,64'))
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
const SECONDS = Number(process.env.BENCH_SECONDS ?? (SMOKE ? 1 : 10));
const CEILINGS = process.env.BENCH_CEILINGS !== '0' && !SMOKE;
/** BENCH_CEILINGS=postgres: the pgbench ceiling without Kafka's (which needs its tools jars from Maven). */
const KAFKA_CEILING = process.env.BENCH_CEILINGS !== 'postgres';
const CEILING_SHOPS = process.env.BENCH_CEILING_SHOPS ? Number(process.env.BENCH_CEILING_SHOPS) : undefined;
const WRITE_DOCS = process.env.BENCH_WRITE_DOCS !== '0' && !SMOKE;
/** --no-build: the caller compiled dist/ already. */
const BUILD = !process.argv.includes('--no-build');
const SANDBOX_SECRET = 'bench-sandbox-secret';
/** BENCH_CPU_PROFILE=1: every service writes a V8 CPU profile to .run/bench/profiles/ when it stops. */
const PROFILE = process.env.BENCH_CPU_PROFILE === '1';
/** BENCH_QUERY_LOG=1: the query counter also logs every statement's text (tools/bench/query-counter.cjs). */
const QUERY_LOG = process.env.BENCH_QUERY_LOG === '1';
const OPS_TOKEN = 'bench-ops-token-' + randomUUID();
/** BENCH_WARMUP_SECONDS: whole order lives before the first level (creates, then their callbacks). */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? (SMOKE ? 0 : 15));
const WARMUP_CONCURRENCY = 32;
const SOAK_SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? (SMOKE ? 2 : 300));
const SOAK_SAMPLE_SECONDS = Number(process.env.BENCH_SOAK_SAMPLE_SECONDS ?? (SMOKE ? 1 : 30));
const SOAK_RATE = process.env.BENCH_SOAK_RATE ? Number(process.env.BENCH_SOAK_RATE) : undefined;
/** Issue 13's targets, printed against this run's figures at the end. */
const TARGETS = {
  lifeCpuMs: 4,
  createP99AtC8Ms: 100,
  merchantP99Ms: 500,
  backlogSeconds: 1,
  rssMb: 200,
  ordersPerSecond: 450,
  callbacksPerSecond: 1500,
  pgCeilingShare: 0.6,
};

/** The merchant's server: notes when each order's `completed` callback arrived. */
async function startMerchantReceiver() {
  const completedAt = new Map();
  let received = 0;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = process.hrtime.bigint();
      received += 1;
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const id = body.objectId ?? body.orderId;
        if (body.status === 'completed' && id && !completedAt.has(id)) completedAt.set(id, at);
      } catch {
        /* counted, not parsed */
      }
      res.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((r) => server.listen(0, '127.0.0.1', () => r(undefined)));
  return {
    url: `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/callbacks`,
    completedAt,
    received: () => received,
    close: () => new Promise((r) => server.close(r)),
  };
}

const signSandbox = (body) => sign(SANDBOX_SECRET, body);

async function json(url, init) {
  const r = await fetch(url, init);
  const text = await r.text();
  if (!r.ok) throw new Error(`${init?.method ?? 'GET'} ${url} → ${r.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** CPU milliseconds per unit of work (an order created, a callback taken) of each process. */
function perUnit(delta, count) {
  return Object.fromEntries(Object.entries(delta).map(([k, ms]) => [k, count > 0 ? ms / count : NaN]));
}
const cpuTotal = (cpu) =>
  Object.entries(cpu)
    .filter(([k]) => k !== 'load generator')
    .reduce((a, [, v]) => a + v, 0);
const cpuLine = (cpu) =>
  Object.entries(cpu)
    .map(([k, v]) => `${k} ${fmt(v, 2)}`)
    .join(', ') + ` (system ${fmt(cpuTotal(cpu), 2)})`;

const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : '–');
/** Write system calls per unit: the system's (every process but the load generator) and the load generator's. */
const writesTotal = (w) => cpuTotal(w);
const writesLine = (w) =>
  Object.entries(w)
    .map(([k, v]) => `${k} ${fmt(v, 1)}`)
    .join(', ') + ` (system ${fmt(writesTotal(w), 1)})`;
const queriesLine = (per) =>
  Object.entries(per)
    .filter(([, v]) => v.statements > 0)
    .map(([k, v]) => `${k} ${fmt(v.statements, 1)}/${fmt(v.transactions, 1)}`)
    .join(', ') + ` (all ${fmt(queriesTotal(per).statements, 1)}/${fmt(queriesTotal(per).transactions, 1)})`;
const soakLine = (soak) => {
  const head = `soak: ${fmt(soak.created / soak.seconds, 1)} orders/s for ${fmt(soak.seconds)} s (asked ${fmt(soak.ratePerSecond, 1)}), ${soak.created} created, ${soak.callbacks} callbacks, ${soak.failed} failed, ${soak.skipped} skipped${soak.skipped ? ' (the system fell behind)' : ''}${soak.failures.length ? `: ${soak.failures.join(' | ')}` : ''}; create p99 ${fmt(soak.createP99, 1)} ms; merchant callbacks at the end ${soak.backlog.error ? `not measured (${soak.backlog.error})` : `${soak.backlog.pending} pending = ${fmt(soak.backlog.seconds, 1)} s of work`}`;
  if (!soak.judged) return `${head}; growth not judged (needs two samples after the first ${60} s)`;
  return `${head}; after the first minute (from ${soak.from} s, medians of the earlier and the later half of the samples) resident memory ${soak.memoryGrew.length ? `grew: ${soak.memoryGrew.join(', ')}` : 'did not grow'}, consumer lag ${soak.lagGrew ? 'grew' : 'did not grow'} (${fmt(soak.lag.from)} → ${fmt(soak.lag.to)})`;
};

const run = startRun({ name: 'bench', log });

/** Stops with a clear error once an interrupt has begun the clean-up (the run ends in it). */
function stillRunning() {
  if (run.finishing) throw new Error('interrupted');
}

async function main() {
  const started = Date.now();
  ensureInstalled();
  if (BUILD) build();
  const infra = await ensureInfra();
  run.defer('stop the broker and database the bench started', async () => {
    await infra.stop();
    for (const p of infra.processes) run.disown(p.pid);
  });
  for (const p of infra.processes) run.own(p.pid, p);
  const swept = await sweepLeftovers({ brokers: infra.env.KAFKA_BROKERS, databaseUrl: infra.env.DATABASE_URL });
  if (swept) log(swept);
  const { prefix, database: dbName } = scratchNames('bench');
  run.defer(`remove database ${dbName} and topics and groups ${prefix}*`, async () => {
    const k = await removeScratch({
      brokers: infra.env.KAFKA_BROKERS,
      databaseUrl: infra.env.DATABASE_URL,
      prefix,
      database: dbName,
    });
    if (k?.left.length) log(`consumer groups still busy, left for the next run's sweep: ${k.left.join(', ')}`);
  });
  const dbUrl = await createDatabase(infra.env.DATABASE_URL, dbName);
  await ensureContractTopics(infra.env.KAFKA_BROKERS, prefix);
  const receiver = await startMerchantReceiver();
  run.defer('close the merchant receiver', () => receiver.close());

  const ports = await freePorts();
  const logDir = path.join(ROOT, '.run', 'bench');
  mkdirSync(logDir, { recursive: true });
  const env = systemEnv({
    infraEnv: infra.env,
    dbUrl,
    prefix,
    ports,
    opsToken: OPS_TOKEN,
    sandboxSecret: SANDBOX_SECRET,
    instanceId: 'bench',
  });
  /** @type {Map<string, import('node:child_process').ChildProcess>} */
  const children = new Map();
  const stopAll = () => Promise.all([...children.values()].map((c) => stopChild(c)));
  const queryDir = path.join(logDir, 'queries');
  resetQueryCounters(
    queryDir,
    SERVICES.map(([name]) => name),
  );
  run.defer('stop the services', stopAll);
  const startAll = async (extraEnv = {}) => {
    for (const [name] of SERVICES) {
      const child = startService(
        name,
        {
          ...env,
          ...extraEnv,
          BENCH_QUERY_COUNTER_SOCKET: queryCounterSocket(queryDir, name),
          ...(QUERY_LOG ? { BENCH_QUERY_LOG: path.join(queryDir, `${name}.sql`) } : {}),
        },
        {
          logFile: path.join(logDir, `${name}.log`),
          nodeArgs: [
            '-r',
            QUERY_COUNTER,
            ...(PROFILE
              ? ['--cpu-prof', `--cpu-prof-dir=${path.join(logDir, 'profiles')}`, `--cpu-prof-name=${name}.cpuprofile`]
              : []),
          ],
        },
      );
      if (!child) {
        log(`${name}: not built in this checkout; left out`);
        continue;
      }
      run.own(child.pid);
      child.once('exit', () => run.disown(child.pid));
      children.set(name, child);
    }
    await Promise.all([...children.keys()].map((name) => waitForHttp(`http://127.0.0.1:${ports[name]}/health`)));
  };
  try {
    await startAll();
    stillRunning();
    const gateway = `http://127.0.0.1:${ports.gateway}`;
    const opsApi = `http://127.0.0.1:${ports.backoffice}`;
    const ingest = `http://127.0.0.1:${ports['callbacks-ingest']}`;
    const ops = { authorization: `Bearer ${OPS_TOKEN}`, 'content-type': 'application/json' };
    const company = await json(`${opsApi}/ops/v1/companies`, {
      method: 'POST',
      headers: ops,
      body: JSON.stringify({ name: 'Bench Company' }),
    });
    const shop = await json(`${opsApi}/ops/v1/companies/${company.id}/shops`, {
      method: 'POST',
      headers: ops,
      body: JSON.stringify({ name: 'Bench Shop', callbackUrl: receiver.url }),
    });
    const auth = { authorization: `Bearer ${shop.apiKey}` };
    log(`stack up (${[...children.keys()].join(', ')}); database ${dbName}, topic prefix ${prefix}`);

    let seq = 0;
    const createOrder = (created) => () => {
      const merchantOrderId = `bench-${process.pid}-${++seq}`;
      return {
        url: `${gateway}/order`,
        method: 'POST',
        headers: auth,
        // .99: the sandbox takes the payment and never calls back; the benchmark sends the callback.
        body: { order: { merchantOrderId, cost: { amount: '10.99', currency: 'USD' } } },
        onDone: (res) => created?.push(JSON.parse(res.body).id),
      };
    };
    /** The provider's signed `success` callback for an order. */
    const callbackFor = (orderId) => {
      const body = JSON.stringify({
        eventId: `bench-${orderId}`,
        kind: 'payment',
        reference: orderId,
        status: 'success',
        amount: '10.99',
        currency: 'USD',
      });
      return {
        url: `${ingest}/callbacks/sandbox`,
        method: 'POST',
        headers: { 'x-signature': signSandbox(body) },
        body,
      };
    };
    /** Merchant callbacks pending at the end of a phase, and in seconds of work at the rate they left meanwhile. */
    const backlogAfter = async (received0, seconds) => {
      const rate = (receiver.received() - received0) / seconds;
      const b = await pendingDeliveries(dbUrl);
      const out = { ...b, rate, seconds: b.pending === undefined ? NaN : b.pending === 0 ? 0 : b.pending / rate };
      return out;
    };
    const backlogText = (b) =>
      b.error ? `not measured (${b.error})` : `${b.pending} pending = ${fmt(b.seconds, 1)} s at ${fmt(b.rate)}/s`;

    if (WARMUP_SECONDS > 0) {
      // Whole order lives, so every path runs hot before the first level: the services' JIT and
      // the broker's (a JVM the bench may have started a minute ago compiles for minutes, and its
      // CPU would otherwise be billed to the first levels' orders). Then the backlog drains.
      log(`warm-up: ${WARMUP_SECONDS} s of creates, then their callbacks, at concurrency ${WARMUP_CONCURRENCY}`);
      const warm = [];
      await runClosedLoop({ concurrency: WARMUP_CONCURRENCY, seconds: WARMUP_SECONDS, makeRequest: createOrder(warm) });
      let w = 0;
      await runClosedLoop({
        concurrency: WARMUP_CONCURRENCY,
        seconds: WARMUP_SECONDS,
        makeRequest: () => (w < warm.length ? callbackFor(warm[w++]) : null),
      });
      // Events still on their way to merchant-callbacks are not pending yet: a second for them.
      await new Promise((r) => setTimeout(r, 1000));
      const until = Date.now() + 60_000;
      let pending = 0;
      while (Date.now() < until && (pending = (await pendingDeliveries(dbUrl)).pending ?? 0) > 0)
        await new Promise((r) => setTimeout(r, 250));
      if (pending > 0) log(`warm-up: ${pending} merchant callbacks still pending after a minute; measuring anyway`);
    }

    const rows = [];
    /** @returns {[string, number | undefined][]} */
    const counted = () => [...children].map(([name, child]) => [name, child.pid]);
    const cpuNow = () => cpuSnapshot(counted(), { kafkaMarker: '/.run/kafka ', pgDatabase: dbName });
    const writesNow = () => writeCallsSnapshot(counted(), { kafkaMarker: '/.run/kafka ', pgDatabase: dbName });
    for (const c of LEVELS) {
      stillRunning();
      const created = [];
      const q0 = await queryCounts(children, queryDir);
      const cpu0 = cpuNow();
      const writes0 = writesNow();
      const received0 = receiver.received();
      const orders = await runClosedLoop({ concurrency: c, seconds: SECONDS, makeRequest: createOrder(created) });
      stillRunning();
      const cpu1 = cpuNow();
      const cpuOrders = perUnit(cpuDelta(cpu0, cpu1), orders.ok);
      const backlogOrders = await backlogAfter(received0, orders.elapsed);
      log(
        `c=${c}: ${fmt(orders.perSecond)} orders/s, p50 ${fmt(orders.p50, 1)} ms, p99 ${fmt(orders.p99, 1)} ms${orders.other + orders.errors ? `, ${orders.other} non-2xx, ${orders.errors} errors: ${orders.otherSamples.join(' | ')}` : ''}; merchant callbacks ${backlogText(backlogOrders)}`,
      );

      const acked = new Map();
      let i = 0;
      const cpu2 = cpuNow();
      const received1 = receiver.received();
      const callbacks = await runClosedLoop({
        concurrency: c,
        seconds: SECONDS,
        makeRequest: () => {
          if (i >= created.length) return null;
          const orderId = created[i++];
          return { ...callbackFor(orderId), onDone: (_res, at) => acked.set(orderId, at) };
        },
      });
      stillRunning();
      const cpuCallbacks = perUnit(cpuDelta(cpu2, cpuNow()), callbacks.ok);
      const backlogCallbacks = await backlogAfter(received1, callbacks.elapsed);
      log(
        `c=${c}: ${fmt(callbacks.perSecond)} callbacks/s, p50 ${fmt(callbacks.p50, 1)} ms, p99 ${fmt(callbacks.p99, 1)} ms${callbacks.other + callbacks.errors ? `, ${callbacks.other} non-2xx, ${callbacks.errors} errors: ${callbacks.otherSamples.join(' | ')}` : ''}; merchant callbacks ${backlogText(backlogCallbacks)}`,
      );

      let merchant = { p50: NaN, p99: NaN, delivered: 0, expected: acked.size };
      if (children.has('merchant-callbacks')) {
        const deadline = Date.now() + 60_000;
        while (Date.now() < deadline && [...acked.keys()].some((id) => !receiver.completedAt.has(id)))
          await new Promise((r) => setTimeout(r, 200));
        const lat = new Latencies();
        for (const [id, at] of acked) {
          const arrived = receiver.completedAt.get(id);
          if (arrived !== undefined) lat.add(Number(arrived - at) / 1000);
        }
        merchant = {
          p50: lat.percentile(50),
          p99: lat.percentile(99),
          delivered: lat.values.length,
          expected: acked.size,
        };
        log(
          `c=${c}: merchant callbacks ${merchant.delivered}/${merchant.expected}, callback 200 → merchant callback p50 ${fmt(merchant.p50, 1)} ms, p99 ${fmt(merchant.p99, 1)} ms`,
        );
      }
      // One order's life: everything from the first create of the level until the last order's
      // `completed` merchant callback arrived, per order created — complete only when every order
      // created got its provider callback.
      const lifeCpu = perUnit(cpuDelta(cpu0, cpuNow()), created.length);
      const lifeWrites = perUnit(cpuDelta(writes0, writesNow()), created.length);
      const lifeQueries = queriesPer(q0, await queryCounts(children, queryDir), created.length);
      const lifeComplete = callbacks.ok === created.length && merchant.delivered === merchant.expected;
      rows.push({
        concurrency: c,
        orders,
        callbacks,
        merchant,
        cpuOrders,
        cpuCallbacks,
        lifeCpu,
        lifeWrites,
        lifeQueries,
        lifeComplete,
        backlog: { orders: backlogOrders, callbacks: backlogCallbacks },
      });
      log(`c=${c}: CPU ms per order: ${cpuLine(cpuOrders)}; per callback: ${cpuLine(cpuCallbacks)}`);
      log(
        `c=${c}: per order's life${lifeComplete ? '' : ' (incomplete: not every order got its callbacks)'}: CPU ms ${cpuLine(lifeCpu)}; statements/transactions ${queriesLine(lifeQueries)}; write calls ${writesLine(lifeWrites)}`,
      );
    }

    const best = rows.reduce((a, b) => (b.orders.perSecond > a.orders.perSecond ? b : a));
    /** @type {any} */
    let soak;
    if (SOAK_SECONDS > 0) {
      const rate = SOAK_RATE ?? 0.7 * best.orders.perSecond;
      log(
        `soak: ${SOAK_SECONDS} s of orders' lives (create, then its provider callback) at ${fmt(rate, 1)} orders/s${SOAK_RATE ? '' : ` (70 % of ${fmt(best.orders.perSecond)})`}, sampled every ${SOAK_SAMPLE_SECONDS} s…`,
      );
      const admin = await kafkaAdmin(infra.env.KAFKA_BROKERS);
      try {
        const received0 = receiver.received();
        soak = await runSoak({
          ratePerSecond: rate,
          seconds: SOAK_SECONDS,
          sampleSeconds: SOAK_SAMPLE_SECONDS,
          createOrder: createOrder(null),
          callbackFor,
          sample: async () => ({
            rss: Object.fromEntries([...children].map(([name, child]) => [name, rssMb(child.pid)])),
            lag: (await consumerLag(admin, prefix).catch(() => ({ total: NaN }))).total,
          }),
          log,
          stillRunning,
        });
        soak.backlog = await backlogAfter(received0, soak.seconds);
      } finally {
        await admin.disconnect();
      }
      log(soakLine(soak));
    }
    const memory = Object.fromEntries([...children].map(([name, child]) => [name, peakRssMb(child.pid)]));
    const messagesPerOrder = await messagesPerOrderOf(infra.env.KAFKA_BROKERS, prefix, seq);
    const metricsCost =
      process.env.BENCH_METRICS_COST === '0'
        ? undefined
        : await measureMetricsCost({
            concurrency: best.concurrency,
            seconds: SECONDS,
            createOrder: createOrder(null),
            pgDatabase: dbName,
            log,
            restart: async (extraEnv) => {
              await stopAll();
              children.clear();
              await startAll(extraEnv);
              return {
                processes: [...children].map(([name, child]) => [name, child.pid]),
                metricsUrls: [...children.keys()].map((name) => `http://127.0.0.1:${ports[name]}/metrics`),
              };
            },
          }).catch((err) => ({ error: err.message }));
    if (metricsCost) log(metricsCostLine(metricsCost, best.concurrency));
    // The ceilings run on the machine alone: our services would otherwise take (and process) the
    // rows pgbench writes, and share the CPU with it.
    await stopAll();
    stillRunning();
    /** @type {any} */
    let roundTrip = { error: 'not measured in a smoke run' };
    if (!SMOKE) {
      log('what one message costs here: round trips Node ↔ Node and node-postgres ↔ PostgreSQL…');
      roundTrip = await roundTrips(dbUrl).catch((err) => ({ error: err.message }));
      if (!roundTrip.error) log(roundTripLine(roundTrip));
    }
    /** @type {any} */
    let pg = { error: 'BENCH_CEILINGS=0' };
    /** @type {any} */
    let kafka = { error: 'BENCH_CEILINGS=0' };
    if (CEILINGS) {
      log(
        `ceilings at concurrency ${best.concurrency}: pgbench with the same statements per order, then Kafka's producer…`,
      );
      pg = await postgresCeiling({
        databaseUrl: dbUrl,
        concurrency: best.concurrency,
        seconds: SECONDS,
        shop: shop.id,
        shops: CEILING_SHOPS ?? best.concurrency,
        log,
        run,
      }).catch((err) => ({ error: err.message }));
      stillRunning();
      if (KAFKA_CEILING)
        kafka = await kafkaCeiling({
          brokers: infra.env.KAFKA_BROKERS,
          topic: `${prefix}bench.ceiling`,
          messagesPerOrder,
          log,
          run,
        }).catch((err) => ({ error: err.message }));
      else kafka = { error: 'BENCH_CEILINGS=postgres' };
    }

    const report = renderReport({ rows, memory, pg, kafka, best, metricsCost, soak, roundTrip });
    console.log('\n' + report.text);
    writeFileSync(path.join(logDir, 'latest.md'), report.markdown);
    if (WRITE_DOCS) updatePerformanceDoc(report.markdown);
    log(`measured in ${((Date.now() - started) / 1000).toFixed(0)} s; service logs in .run/bench/`);
  } catch (err) {
    // A service's log says why it failed; the error alone rarely does.
    if (!run.finishing) log(`failed; service logs in .run/bench/`);
    throw err;
  }
  return 0;
}

async function kafkaAdmin(brokers) {
  const { createRequire } = await import('node:module');
  const { Kafka, logLevel } = createRequire(import.meta.url)('kafkajs');
  const admin = new Kafka({ brokers: brokers.split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  return admin;
}

/** Every message the run put on its topics (replies included), per order created. */
async function messagesPerOrderOf(brokers, prefix, orders) {
  const admin = await kafkaAdmin(brokers);
  try {
    let total = 0;
    for (const topic of (await admin.listTopics()).filter((t) => t.startsWith(prefix) && !t.endsWith('.ceiling'))) {
      for (const p of await admin.fetchTopicOffsets(topic)) total += Number(p.high) - Number(p.low);
    }
    return Math.round((10 * total) / Math.max(orders, 1)) / 10;
  } finally {
    await admin.disconnect();
  }
}

function machine() {
  const cpus = os.cpus();
  return `${cpus.length} × ${cpus[0]?.model ?? 'unknown CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, Node ${process.version}, ${os.type()} ${os.release()}`;
}

function renderReport({ rows, memory, pg, kafka, best, metricsCost, soak, roundTrip }) {
  const lines = [];
  lines.push(`Machine: ${machine()}. Run: ${new Date().toISOString()}, ${SECONDS} s per phase.`);
  lines.push('');
  lines.push(
    '| concurrency | orders/s | create p50 ms | create p99 ms | callbacks/s | callback p99 ms | callback → merchant p50 ms | p99 ms | merchant callbacks | backlog after orders / callbacks |',
  );
  lines.push('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  const backlogCell = (b) => (b.error ? '–' : `${b.pending} (${fmt(b.seconds, 1)} s)`);
  for (const r of rows) {
    lines.push(
      `| ${r.concurrency} | ${fmt(r.orders.perSecond)} | ${fmt(r.orders.p50, 1)} | ${fmt(r.orders.p99, 1)} | ${fmt(r.callbacks.perSecond)} | ${fmt(r.callbacks.p99, 1)} | ${fmt(r.merchant.p50, 1)} | ${fmt(r.merchant.p99, 1)} | ${r.merchant.delivered}/${r.merchant.expected} | ${backlogCell(r.backlog.orders)} / ${backlogCell(r.backlog.callbacks)} |`,
    );
  }
  lines.push('');
  lines.push(
    "The backlog is the merchant callbacks pending when a phase's load ended, and in seconds of work at the rate merchant callbacks left during that phase.",
  );
  lines.push('');
  const names = Object.keys(best.cpuOrders);
  lines.push(
    `CPU per unit of work at concurrency ${best.concurrency} (milliseconds of CPU, from /proc; ${os.cpus().length} cores give ${os.cpus().length * 1000} ms per second): the work of one order created (everything the system does meanwhile: relay, provider dispatch, merchant callbacks) and of one provider callback taken (ingest, fold, publish, merchant callback).`,
  );
  lines.push('');
  lines.push(`| per | ${names.join(' | ')} | system (without the load generator) | CPU-bound limit |`);
  lines.push(`|---|${names.map(() => '---:').join('|')}|---:|---:|`);
  for (const [label, cpu] of [
    ['order created', best.cpuOrders],
    ['callback taken', best.cpuCallbacks],
    ["order's life", best.lifeCpu],
  ]) {
    lines.push(
      `| ${label} | ${names.map((n) => fmt(cpu[n], 2)).join(' | ')} | ${fmt(cpuTotal(cpu), 2)} | ${fmt((os.cpus().length * 1000) / cpuTotal(cpu))}/s |`,
    );
  }
  lines.push('');
  lines.push(
    'Peak resident memory (VmHWM): ' +
      Object.entries(memory)
        .map(([n, mb]) => `${n} ${fmt(mb)} MB`)
        .join(', ') +
      '.',
  );
  lines.push('');
  const pgLine = pg.error
    ? `PostgreSQL ceiling: not measured (${pg.error})`
    : `PostgreSQL ceiling (pgbench, the same statements and transactions per order's life, concurrency ${best.concurrency}, ${pg.shops === best.concurrency ? 'a shop per client' : `${pg.shops} shop${pg.shops === 1 ? '' : 's'}`}): ${fmt(pg.ordersPerSecond)} orders/s; ours ${fmt(best.orders.perSecond)} = ${fmt((100 * best.orders.perSecond) / pg.ordersPerSecond)}% of it.`;
  const kafkaLine = kafka.error
    ? `Kafka ceiling: not measured (${kafka.error})`
    : `Kafka ceiling (ProducerPerformance, ${kafka.recordSize}-byte records, acks=all, idempotent): ${fmt(kafka.recordsPerSecond)} records/s; our ${fmt(best.orders.perSecond)} orders/s produce about ${fmt(best.orders.perSecond * kafka.messagesPerOrder)} messages/s (${kafka.messagesPerOrder} per order) = ${fmt((100 * best.orders.perSecond * kafka.messagesPerOrder) / kafka.recordsPerSecond)}% of it.`;
  lines.push(pgLine);
  lines.push('');
  lines.push(kafkaLine);
  if (metricsCost) lines.push('', metricsCostLine(metricsCost, best.concurrency));
  lines.push('', ...lifeSection(rows, roundTrip));
  if (soak) lines.push('', ...soakSection(soak));
  lines.push('', ...targetsSection({ rows, memory, pg, best, soak }));
  const markdown = lines.join('\n') + '\n';
  return { markdown, text: markdown };
}

/** Per order's life at each level: CPU (the load generator apart) and statements/transactions per service. */
function lifeSection(rows, roundTrip) {
  const services = [...new Set(rows.flatMap((r) => Object.keys(r.lifeQueries)))].filter((n) =>
    rows.some((r) => r.lifeQueries[n]?.statements > 0),
  );
  const out = [
    "One order's life: from the first create of a level until every order of it had its `completed` merchant callback — the order created, its provider callback, its dispatch and merchant callbacks — per order created. CPU of every process (PostgreSQL: the backends of the run's database; the Kafka broker: all of it, shared with whatever else uses it) with the load generator apart; statements / transactions (explicit ones and single statements outside one) per service, from the query counter preloaded into every service (tools/bench/query-counter.cjs).",
    '',
    `| concurrency | CPU ms (system) | load generator ms | ${services.map((n) => `${n} stmts / tx`).join(' | ')} | all stmts / tx |`,
    `|---:|---:|---:|${services.map(() => '---:').join('|')}|---:|`,
  ];
  for (const r of rows) {
    const t = queriesTotal(r.lifeQueries);
    out.push(
      `| ${r.concurrency}${r.lifeComplete ? '' : ' (incomplete)'} | ${fmt(cpuTotal(r.lifeCpu), 2)} | ${fmt(r.lifeCpu['load generator'], 2)} | ${services
        .map((n) =>
          r.lifeQueries[n] ? `${fmt(r.lifeQueries[n].statements, 1)} / ${fmt(r.lifeQueries[n].transactions, 1)}` : '–',
        )
        .join(' | ')} | ${fmt(t.statements, 1)} / ${fmt(t.transactions, 1)} |`,
    );
  }
  out.push('', ...messagesSection(rows, roundTrip));
  return out;
}

/**
 * Write system calls per order's life, per process, and an estimate of what the messages between
 * the processes cost: each statement at one node-postgres ↔ PostgreSQL round trip, every other
 * write of a service or the broker (a produce, a fetch or its answer, an HTTP request or answer,
 * a log line to its pipe) at half a Node ↔ Node round trip — both measured here with no work
 * around them (tools/bench/round-trip.mjs).
 */
function messagesSection(rows, roundTrip) {
  const names = Object.keys(rows[0]?.lifeWrites ?? {});
  if (names.length === 0) return [];
  const nodeHalfUs = roundTrip?.node ? (roundTrip.node.clientUs + roundTrip.node.serverUs) / 2 : NaN;
  const statementUs = roundTrip?.postgres ? roundTrip.postgres.clientUs + roundTrip.postgres.serverUs : NaN;
  const messagingNames = names.filter((n) => n !== 'postgres' && n !== 'load generator');
  const out = [
    "Write system calls per order's life (`syscw` of /proc/<pid>/io, all threads: write and writev, which Node and the broker send with, not send/sendmsg, which PostgreSQL answers with — so PostgreSQL's column is its WAL and log writes; a service's writes include its log lines; '–' where /proc could not be read):",
    '',
    `| concurrency | ${names.join(' | ')} | system (without the load generator) | messages, estimated CPU ms |`,
    `|---:|${names.map(() => '---:').join('|')}|---:|---:|`,
  ];
  for (const r of rows) {
    const statements = queriesTotal(r.lifeQueries).statements;
    const others = Math.max(0, messagingNames.reduce((a, n) => a + r.lifeWrites[n], 0) - statements);
    const estimateMs = (statements * statementUs + others * nodeHalfUs) / 1000;
    out.push(
      `| ${r.concurrency} | ${names.map((n) => fmt(r.lifeWrites[n], 1)).join(' | ')} | ${fmt(writesTotal(r.lifeWrites), 1)} | ${fmt(estimateMs, 2)} |`,
    );
  }
  out.push('');
  out.push(
    roundTrip?.node
      ? `What one message costs on this machine, measured in the same run with the services stopped and the machine otherwise idle: ${roundTripLine(roundTrip)}. "Messages, estimated" prices each statement of an order's life at one statement round trip (${fmt(statementUs, 1)} µs, both sides) and every other write call of the services and the broker at half a Node round trip (${fmt(nodeHalfUs, 1)} µs: a write and its reading). An estimate, not a floor: a write may carry many messages, and on busy cores a round trip costs less than on idle ones, which must wake up for it.`
      : `What one message costs: not measured (${roundTrip?.error ?? 'no figure'}).`,
  );
  return out;
}

function soakSection(soak) {
  const names = Object.keys(soak.samples[0]?.rss ?? {});
  const out = [soakLine(soak) + '.', ''];
  if (soak.samples.length === 0) return out;
  out.push(`| s | ${names.map((n) => `${n} MB`).join(' | ')} | consumer lag |`);
  out.push(`|---:|${names.map(() => '---:').join('|')}|---:|`);
  for (const s of soak.samples) out.push(`| ${s.at} | ${names.map((n) => fmt(s.rss[n])).join(' | ')} | ${s.lag} |`);
  return out;
}

/** Issue 13's targets against this run. */
function targetsSection({ rows, memory, pg, best, soak }) {
  const top = rows.reduce((a, b) => (b.concurrency > a.concurrency ? b : a));
  const c8 = rows.find((r) => r.concurrency === 8);
  const yes = (ok) => (ok === undefined ? '–' : ok ? 'yes' : '**no**');
  const backlogs = [
    ...rows.flatMap((r) => [
      [`c=${r.concurrency} orders`, r.backlog.orders],
      [`c=${r.concurrency} callbacks`, r.backlog.callbacks],
    ]),
    ...(soak?.backlog ? [['soak', soak.backlog]] : []),
  ].filter(([, b]) => !b.error);
  const worst = backlogs.reduce((a, b) => (b[1].seconds > (a?.[1].seconds ?? -1) ? b : a), undefined);
  const peak = Math.max(...Object.values(memory).filter(Number.isFinite));
  const life = cpuTotal(top.lifeCpu);
  const t = [
    [
      `CPU per order's life ≤ ${TARGETS.lifeCpuMs} ms (c=${top.concurrency})`,
      `${fmt(life, 2)} ms (load generator ${fmt(top.lifeCpu['load generator'], 2)} ms apart)`,
      yes(Number.isFinite(life) ? life <= TARGETS.lifeCpuMs : undefined),
    ],
    [
      `≥ ${TARGETS.ordersPerSecond} orders/s, ≥ ${TARGETS.callbacksPerSecond} callbacks/s`,
      `${fmt(best.orders.perSecond)} orders/s (c=${best.concurrency}), ${fmt(Math.max(...rows.map((r) => r.callbacks.perSecond)))} callbacks/s`,
      yes(
        best.orders.perSecond >= TARGETS.ordersPerSecond &&
          Math.max(...rows.map((r) => r.callbacks.perSecond)) >= TARGETS.callbacksPerSecond,
      ),
    ],
    [
      `p99 create-order ≤ ${TARGETS.createP99AtC8Ms} ms at concurrency 8`,
      c8 ? `${fmt(c8.orders.p99, 1)} ms` : 'not run (BENCH_LEVELS has no 8)',
      yes(c8 ? c8.orders.p99 <= TARGETS.createP99AtC8Ms : undefined),
    ],
    [
      `callback → merchant p99 ≤ ${TARGETS.merchantP99Ms} ms (c=${top.concurrency})`,
      `${fmt(top.merchant.p99, 1)} ms`,
      yes(Number.isFinite(top.merchant.p99) ? top.merchant.p99 <= TARGETS.merchantP99Ms : undefined),
    ],
    [
      `merchant callback backlog < ${TARGETS.backlogSeconds} s of work at the end of each phase`,
      worst ? `worst ${worst[0]}: ${worst[1].pending} pending = ${fmt(worst[1].seconds, 1)} s` : 'not measured',
      yes(worst ? backlogs.every(([, b]) => b.pending === 0 || b.seconds < TARGETS.backlogSeconds) : undefined),
    ],
    [
      'soak: resident memory does not grow after the first minute',
      !soak
        ? 'no soak (BENCH_SOAK_SECONDS=0)'
        : !soak.judged
          ? 'not judged (too short)'
          : soak.memoryGrew.join(', ') || 'flat',
      yes(soak?.judged ? soak.memoryGrew.length === 0 : undefined),
    ],
    [
      'soak: consumer lag does not grow after the first minute',
      !soak
        ? 'no soak'
        : !soak.judged
          ? 'not judged (too short)'
          : `${fmt(soak.lag.from)} → ${fmt(soak.lag.to)} (medians)`,
      yes(soak?.judged ? !soak.lagGrew : undefined),
    ],
    [
      `every Node service < ${TARGETS.rssMb} MB resident`,
      `peak ${fmt(peak)} MB`,
      yes(Number.isFinite(peak) ? peak < TARGETS.rssMb : undefined),
    ],
    [
      `≥ ${100 * TARGETS.pgCeilingShare} % of the PostgreSQL same-work ceiling`,
      pg.error ? `not measured (${pg.error})` : `${fmt((100 * best.orders.perSecond) / pg.ordersPerSecond)} %`,
      yes(pg.error ? undefined : best.orders.perSecond / pg.ordersPerSecond >= TARGETS.pgCeilingShare),
    ],
    [
      "statements / transactions per order's life (figure only)",
      `${fmt(queriesTotal(top.lifeQueries).statements, 1)} / ${fmt(queriesTotal(top.lifeQueries).transactions, 1)} (c=${top.concurrency})`,
      '–',
    ],
  ];
  return [
    'Targets (issue 13) against this run:',
    '',
    '| target | figure | met? |',
    '|---|---|---|',
    ...t.map((r) => `| ${r.join(' | ')} |`),
  ];
}

function updatePerformanceDoc(markdown) {
  const file = path.join(ROOT, 'docs', 'performance.md');
  const begin = '<!-- bench:begin -->';
  const end = '<!-- bench:end -->';
  let doc;
  try {
    doc = readFileSync(file, 'utf8');
  } catch {
    return;
  }
  const a = doc.indexOf(begin);
  const b = doc.indexOf(end);
  if (a < 0 || b < a) return;
  writeFileSync(file, doc.slice(0, a + begin.length) + '\n' + markdown + doc.slice(b));
  log('docs/performance.md updated with these figures');
}

void run.main(main);
