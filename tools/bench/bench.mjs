// `npm run bench`: starts the whole stack as separate processes on a database and topic prefix of
// its own, drives create-order requests and provider callbacks at rising concurrency through the
// real gateway and callbacks-ingest, and prints throughput, latency and peak memory — next to the
// ceilings of the same machine measured in the same run (pgbench with the same statements per
// order, and Kafka's own producer at full speed). Figures only: nothing here asserts a target.
//
//   Its settings (BENCH_LEVELS, BENCH_SECONDS, BENCH_LEDGER, the soak's…, --smoke, --no-build) are
//   listed in tools/bench/settings.mjs.
//
// It exits when done (0, or 1 when a step failed), and stops and removes whatever it started or
// created — services, a broker or PostgreSQL it started, its database, topics and consumer groups
// — also on ^C or SIGTERM (a second one kills at once); a watchdog stops its processes should the
// bench itself be killed. Leftovers of crashed runs older than an hour go at the next start.
import { mkdirSync, writeFileSync } from 'node:fs';
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
import { runClosedLoop } from './load.mjs';
import { peakRssMb, rssMb } from './memory.mjs';
import { QUERY_COUNTER, queriesPer, queryCounterSocket, queryCounts, resetQueryCounters } from './queries.mjs';
import { consumerLag, pendingDeliveries } from './backlog.mjs';
import { runSoak } from './soak.mjs';
import { measureIdle, warmUp } from './phases.mjs';
import { cpuDelta, cpuSnapshot, writeCallsSnapshot } from './cpu.mjs';
import { roundTripLine, roundTrips } from './round-trip.mjs';
import { measureMetricsCost, metricsCostLine } from './metrics-cost.mjs';
import {
  cpuLine,
  fmt,
  perUnit,
  queriesLine,
  renderReport,
  soakLifeLine,
  merchantLatencyText,
  soakLine,
  updatePerformanceDoc,
  writesLine,
} from './report.mjs';
import { startMerchantReceiver } from './merchant-receiver.mjs';
import { kafkaAdmin, messagesPerOrderOf } from './topic-messages.mjs';
import { freePorts, signSandbox as sign, systemEnv } from '../stack/system.mjs';
import {
  BENCHED,
  BUILD,
  CEILING_SHOPS,
  CEILINGS,
  IDLE_SECONDS,
  KAFKA_CEILING,
  LEDGER,
  LEVELS,
  OPS_TOKEN,
  PROFILE,
  QUERY_LOG,
  SANDBOX_SECRET,
  SECONDS,
  SMOKE,
  SOAK_RATE,
  SOAK_SAMPLE_SECONDS,
  SOAK_SECONDS,
  WARMUP_CONCURRENCY,
  WARMUP_SECONDS,
  WRITE_DOCS,
} from './settings.mjs';

const log = logger('bench', 1);
const signSandbox = (body) => sign(SANDBOX_SECRET, body);

async function json(url, init) {
  const r = await fetch(url, init);
  const text = await r.text();
  if (!r.ok) throw new Error(`${init?.method ?? 'GET'} ${url} → ${r.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

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

  const ports = await freePorts(BENCHED);
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
  // The ledger's settlement sweep at its own default (5 s), as it runs in production: the half
  // second the fault suite sets, so that its checks need not wait, is not what the books cost.
  delete env.LEDGER_SETTLEMENT_SWEEP_MS;
  /** @type {Map<string, import('node:child_process').ChildProcess>} */
  const children = new Map();
  const stopAll = () => Promise.all([...children.values()].map((c) => stopChild(c)));
  const queryDir = path.join(logDir, 'queries');
  resetQueryCounters(
    queryDir,
    BENCHED.map(([name]) => name),
  );
  run.defer('stop the services', stopAll);
  const startAll = async (extraEnv = {}) => {
    for (const [name] of BENCHED) {
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
    if (LEDGER)
      await json(`${opsApi}/ops/v1/shops/${shop.id}/settlement`, {
        method: 'PUT',
        headers: ops,
        body: JSON.stringify({ settlementDelaySeconds: 0, reason: 'bench: credits settle within the level' }),
      });
    log(
      `stack up (${[...children.keys()].join(', ')}${LEDGER ? '' : '; no ledger, BENCH_LEDGER=0'}); database ${dbName}, topic prefix ${prefix}`,
    );

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

    if (WARMUP_SECONDS > 0)
      await warmUp({
        seconds: WARMUP_SECONDS,
        concurrency: WARMUP_CONCURRENCY,
        createOrder,
        callbackFor,
        dbUrl,
        log,
      });

    const rows = [];
    /** @returns {[string, number | undefined][]} */
    const counted = () => [...children].map(([name, child]) => [name, child.pid]);
    const cpuNow = () => cpuSnapshot(counted(), { kafkaMarker: '/.run/kafka ', pgDatabase: dbName });
    /** CPU ms per second of each process with no load (BENCH_IDLE_SECONDS). */
    const idle = IDLE_SECONDS > 0 ? await measureIdle({ seconds: IDLE_SECONDS, cpuNow, log }) : undefined;
    const writesNow = () => writeCallsSnapshot(counted(), { kafkaMarker: '/.run/kafka ', pgDatabase: dbName });
    /** Opens a window of orders' lives: what it cost per order since, CPU, statements and the idle share. */
    const openWindow = async () => {
      const q0 = await queryCounts(children, queryDir);
      const cpu0 = cpuNow();
      const started = Date.now();
      return async (/** @type {number} */ orders) => {
        const seconds = (Date.now() - started) / 1000;
        return {
          seconds,
          cpu: perUnit(cpuDelta(cpu0, cpuNow()), orders),
          queries: queriesPer(q0, await queryCounts(children, queryDir), orders),
          idle: idle ? perUnit(idle, orders / seconds) : undefined,
        };
      };
    };
    for (const c of LEVELS) {
      stillRunning();
      const created = [];
      const window = await openWindow();
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
        await receiver.untilCompleted([...acked.keys()], 60_000);
        merchant = receiver.merchantLatency(acked);
        log(`c=${c}: merchant callbacks ${merchant.delivered}/${merchant.expected}, ${merchantLatencyText(merchant)}`);
      }
      // One order's life: everything from the first create of the level until the last order's
      // `completed` merchant callback arrived, per order created — complete only when every order
      // created got its provider callback.
      const life = await window(created.length);
      const { cpu: lifeCpu, queries: lifeQueries } = life;
      const lifeWrites = perUnit(cpuDelta(writes0, writesNow()), created.length);
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
      if (life.idle)
        // What the system spends with no load, over the level's window, per order created.
        log(
          `c=${c}: of each order's life, the idle cost of its ${fmt(life.seconds, 1)}-s window: CPU ms ${cpuLine(life.idle)}`,
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
        // CPU per order's life at a fixed arrival rate: the figure to compare between two runs whose
        // closed-loop levels went at different speeds (a slower level spreads every process's fixed
        // cost over fewer orders and batches less, so its CPU per order rises without any new work).
        // Two runs compare on it only with the same BENCH_SOAK_RATE: by default each run's rate is
        // 70 % of its own best level.
        /** @type {Map<string, bigint>} each life's order id → when its provider callback was acknowledged */
        const lives = new Map();
        const window = await openWindow();
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
          onLife: (id, ackedAt) => lives.set(id, ackedAt),
        });
        soak.backlog = await backlogAfter(received0, soak.seconds);
        // Complete only when no life failed and each got its `completed` merchant callback (a
        // failed one's work would be billed to the others). The wait comes first either way: the
        // latency below would otherwise leave out the slowest callbacks.
        const arrived =
          children.has('merchant-callbacks') && (await receiver.untilCompleted([...lives.keys()], 60_000));
        const complete = soak.failed === 0 && soak.skipped === 0 && arrived;
        soak.life = { rate: lives.size / soak.seconds, complete, ...(await window(lives.size)) };
        // At a fixed rate the merchant callbacks have no backlog of a closed loop's to drain: two
        // runs' p99 here is the latency the ledger may add (issue 29's "callback → merchant p99").
        if (children.has('merchant-callbacks')) soak.merchant = receiver.merchantLatency(lives);
      } finally {
        await admin.disconnect();
      }
      log(soakLine(soak));
      log(soakLifeLine(soak));
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

    const report = renderReport({
      rows,
      memory,
      pg,
      kafka,
      best,
      metricsCost,
      soak,
      roundTrip,
      seconds: SECONDS,
      ledger: LEDGER,
    });
    console.log('\n' + report.text);
    writeFileSync(path.join(logDir, 'latest.md'), report.markdown);
    if (WRITE_DOCS) updatePerformanceDoc(report.markdown, log);
    log(`measured in ${((Date.now() - started) / 1000).toFixed(0)} s; service logs in .run/bench/`);
  } catch (err) {
    // A service's log says why it failed; the error alone rarely does.
    if (!run.finishing) log(`failed; service logs in .run/bench/`);
    throw err;
  }
  return 0;
}

void run.main(main);
