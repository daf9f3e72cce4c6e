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
//   BENCH_CEILINGS=0       skip the pgbench and Kafka producer ceilings
//   --smoke                one level of 4 for 1 s, no ceilings, docs untouched (what the clean-up test runs)
//   --no-build             dist/ is compiled already
//
// It exits when done (0, or 1 when a step failed), and stops and removes whatever it started or
// created — services, a broker or PostgreSQL it started, its database, topics and consumer groups
// — also on ^C or SIGTERM (a second one kills at once); a watchdog stops its processes should the
// bench itself be killed. Leftovers of crashed runs older than an hour go at the next start.
import { createHash, randomUUID } from 'node:crypto';
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
import { peakRssMb } from './memory.mjs';
import { cpuDelta, cpuSnapshot } from './cpu.mjs';
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
const WRITE_DOCS = process.env.BENCH_WRITE_DOCS !== '0' && !SMOKE;
/** --no-build: the caller compiled dist/ already. */
const BUILD = !process.argv.includes('--no-build');
const SANDBOX_SECRET = 'bench-sandbox-secret';
/** BENCH_CPU_PROFILE=1: every service writes a V8 CPU profile to .run/bench/profiles/ when it stops. */
const PROFILE = process.env.BENCH_CPU_PROFILE === '1';
const OPS_TOKEN = 'bench-ops-token-' + randomUUID();

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
  run.defer('stop the services', stopAll);
  const startAll = async (extraEnv = {}) => {
    for (const [name] of SERVICES) {
      const child = startService(
        name,
        { ...env, ...extraEnv },
        {
          logFile: path.join(logDir, `${name}.log`),
          nodeArgs: PROFILE
            ? ['--cpu-prof', `--cpu-prof-dir=${path.join(logDir, 'profiles')}`, `--cpu-prof-name=${name}.cpuprofile`]
            : [],
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
    const opsApi = `http://127.0.0.1:${ports['gateway-ops']}`;
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

    if (!SMOKE) {
      log('warm-up: 3 s at concurrency 8');
      await runClosedLoop({ concurrency: 8, seconds: 3, makeRequest: createOrder(null) });
    }

    const rows = [];
    const cpuNow = () =>
      cpuSnapshot(
        [...children].map(([name, child]) => [name, child.pid]),
        { kafkaMarker: '/.run/kafka ' },
      );
    for (const c of LEVELS) {
      stillRunning();
      const created = [];
      const cpu0 = cpuNow();
      const orders = await runClosedLoop({ concurrency: c, seconds: SECONDS, makeRequest: createOrder(created) });
      stillRunning();
      const cpuOrders = perUnit(cpuDelta(cpu0, cpuNow()), orders.ok);
      log(
        `c=${c}: ${fmt(orders.perSecond)} orders/s, p50 ${fmt(orders.p50, 1)} ms, p99 ${fmt(orders.p99, 1)} ms${orders.other + orders.errors ? `, ${orders.other} non-2xx, ${orders.errors} errors: ${orders.otherSamples.join(' | ')}` : ''}`,
      );

      const acked = new Map();
      let i = 0;
      const cpu1 = cpuNow();
      const callbacks = await runClosedLoop({
        concurrency: c,
        seconds: SECONDS,
        makeRequest: () => {
          if (i >= created.length) return null;
          const orderId = created[i++];
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
            onDone: (_res, at) => acked.set(orderId, at),
          };
        },
      });
      stillRunning();
      const cpuCallbacks = perUnit(cpuDelta(cpu1, cpuNow()), callbacks.ok);
      log(
        `c=${c}: ${fmt(callbacks.perSecond)} callbacks/s, p50 ${fmt(callbacks.p50, 1)} ms, p99 ${fmt(callbacks.p99, 1)} ms${callbacks.other + callbacks.errors ? `, ${callbacks.other} non-2xx, ${callbacks.errors} errors: ${callbacks.otherSamples.join(' | ')}` : ''}`,
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
      rows.push({ concurrency: c, orders, callbacks, merchant, cpuOrders, cpuCallbacks });
      log(`c=${c}: CPU ms per order: ${cpuLine(cpuOrders)}; per callback: ${cpuLine(cpuCallbacks)}`);
    }

    const memory = Object.fromEntries([...children].map(([name, child]) => [name, peakRssMb(child.pid)]));
    const best = rows.reduce((a, b) => (b.orders.perSecond > a.orders.perSecond ? b : a));
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
    let pg = { error: 'BENCH_CEILINGS=0' };
    /** @type {any} */
    let kafka = { error: 'BENCH_CEILINGS=0' };
    if (CEILINGS) {
      log(
        `ceilings at concurrency ${best.concurrency}: pgbench with the same statements per order, then Kafka's producer…`,
      );
      const vars = { shop: shop.id, keyhash: createHash('sha256').update(shop.apiKey).digest('hex') };
      pg = await postgresCeiling({
        databaseUrl: dbUrl,
        concurrency: best.concurrency,
        seconds: SECONDS,
        vars,
        log,
        run,
      }).catch((err) => ({ error: err.message }));
      stillRunning();
      kafka = await kafkaCeiling({
        brokers: infra.env.KAFKA_BROKERS,
        topic: `${prefix}bench.ceiling`,
        messagesPerOrder,
        log,
        run,
      }).catch((err) => ({ error: err.message }));
    }

    const report = renderReport({ rows, memory, pg, kafka, best, metricsCost });
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

function renderReport({ rows, memory, pg, kafka, best, metricsCost }) {
  const lines = [];
  lines.push(`Machine: ${machine()}. Run: ${new Date().toISOString()}, ${SECONDS} s per phase.`);
  lines.push('');
  lines.push(
    '| concurrency | orders/s | create p50 ms | create p99 ms | callbacks/s | callback p99 ms | callback → merchant p50 ms | p99 ms | merchant callbacks |',
  );
  lines.push('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    lines.push(
      `| ${r.concurrency} | ${fmt(r.orders.perSecond)} | ${fmt(r.orders.p50, 1)} | ${fmt(r.orders.p99, 1)} | ${fmt(r.callbacks.perSecond)} | ${fmt(r.callbacks.p99, 1)} | ${fmt(r.merchant.p50, 1)} | ${fmt(r.merchant.p99, 1)} | ${r.merchant.delivered}/${r.merchant.expected} |`,
    );
  }
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
    : `PostgreSQL ceiling (pgbench, the same statements and transactions per order, concurrency ${best.concurrency}): ${fmt(pg.ordersPerSecond)} orders/s; ours ${fmt(best.orders.perSecond)} = ${fmt((100 * best.orders.perSecond) / pg.ordersPerSecond)}% of it.`;
  const kafkaLine = kafka.error
    ? `Kafka ceiling: not measured (${kafka.error})`
    : `Kafka ceiling (ProducerPerformance, ${kafka.recordSize}-byte records, acks=all, idempotent): ${fmt(kafka.recordsPerSecond)} records/s; our ${fmt(best.orders.perSecond)} orders/s produce about ${fmt(best.orders.perSecond * kafka.messagesPerOrder)} messages/s (${kafka.messagesPerOrder} per order) = ${fmt((100 * best.orders.perSecond * kafka.messagesPerOrder) / kafka.recordsPerSecond)}% of it.`;
  lines.push(pgLine);
  lines.push('');
  lines.push(kafkaLine);
  if (metricsCost) lines.push('', metricsCostLine(metricsCost, best.concurrency));
  const markdown = lines.join('\n') + '\n';
  return { markdown, text: markdown };
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
