// `node tools/bench/relay.mjs [distDir]`: the outbox relay alone, measured. A writer commits outbox
// rows at a fixed rate (one row per transaction, 32 keys, an envelope of about 700 bytes, half of
// them `*.status_changed`) and NOTIFYs the relay as the service's own commit would wake it (one
// NOTIFY in flight at a time, as in-process wake-ups during a round fold into one); the
// relay runs in a child process of its own, so its CPU is its own. Prints, per rate: rows
// published, publishing rounds, PostgreSQL statements and round trips of the relay, and CPU ms per
// 1,000 rows of the relay process and of its PostgreSQL backends (from /proc). `distDir` is a
// compiled checkout's dist/ (default: this one's; `npm run bench` or `tsc -p tsconfig.build.json`
// builds it), so two versions can be compared back to back.
//
//   RELAY_RATES=100,400,1600   rows per second          RELAY_SECONDS=8   seconds per rate
//   RELAY_LINGER_MS=5          the relay's lingerMs (a version that has it)
//
// Needs DATABASE_URL and KAFKA_BROKERS (the stack's PostgreSQL and broker). Creates and drops a
// database `relay_bench_<pid>` and topics `relaybench<pid>.…`.
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(path.join(ROOT, 'package.json'));
const pg = require('pg');
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const BROKERS = (process.env.KAFKA_BROKERS ?? '127.0.0.1:19092').split(',');
const APP = 'relay-bench';

function dbUrl(name) {
  const u = new URL(DATABASE_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

/** CPU ms (user + system) of a process, from /proc. */
function procCpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

if (process.argv[2] === '--relay') {
  await relayChild(process.argv[3], process.argv[4], process.argv[5]);
} else {
  await main();
}

async function main() {
  const dist = path.resolve(process.argv[2] ?? path.join(ROOT, 'dist'));
  const rates = (process.env.RELAY_RATES ?? '100,400,1600').split(',').map(Number);
  const seconds = Number(process.env.RELAY_SECONDS ?? 8);
  const dbName = `relay_bench_${process.pid}`;
  const prefix = `relaybench${process.pid}.`;
  const schema = 'svc';
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const url = dbUrl(dbName);
  const writer = new pg.Pool({ connectionString: url, max: 8 });
  writer.on('error', () => undefined);
  let child;
  try {
    const ddl = require(path.join(dist, 'libs/messaging/src/outbox.js')).messagingTablesDdl(schema);
    await writer.query(`CREATE SCHEMA ${schema}`);
    for (const s of ddl) await writer.query(s);
    const { Kafka, logLevel } = require('kafkajs');
    const kafkaAdmin = new Kafka({ brokers: BROKERS, clientId: APP, logLevel: logLevel.NOTHING }).admin();
    await kafkaAdmin.connect();
    await kafkaAdmin.createTopics({
      topics: ['orders.events', 'orders.commands'].map((t) => ({ topic: prefix + t, numPartitions: 8 })),
    });

    child = fork(fileURLToPath(import.meta.url), ['--relay', dist, url, prefix], {
      execArgv: process.env.RELAY_CPU_PROFILE ? ['--cpu-prof', '--cpu-prof-dir=' + process.env.RELAY_CPU_PROFILE] : [],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const ask = (what) =>
      new Promise((resolve) => {
        child.once('message', resolve);
        child.send(what);
      });
    await ask('ready');
    const pad = 'x'.repeat(420);
    let seq = 0;
    const writeOne = async () => {
      const n = seq++;
      const key = `order-${n % 32}`;
      const status = n % 2 === 0;
      const env = {
        eventId: crypto.randomUUID(),
        type: status ? 'order.status_changed' : 'order.something_else',
        occurredAt: new Date().toISOString(),
        correlationId: crypto.randomUUID(),
        payload: { orderId: key, status: 'processing', statusCode: 'ok', amount: '10.00', note: pad },
      };
      await writer.query(
        `INSERT INTO ${schema}.outbox (topic, key, event_id, envelope, headers) VALUES ($1, $2, $3, $4::jsonb, '{}'::jsonb)`,
        [status ? 'orders.events' : 'orders.commands', key, env.eventId, JSON.stringify(env)],
      );
      if (!process.env.RELAY_DRAIN) wake();
    };
    // The service's own commit wakes its relay in-process, and wake-ups during a round fold into
    // one: so one NOTIFY at a time here, not one per row (each would cost the relay a read).
    const notifier = new pg.Client({ connectionString: url });
    notifier.on('error', () => undefined);
    await notifier.connect();
    let notifying = false;
    const wake = () => {
      if (notifying) return;
      notifying = true;
      notifier.query(`NOTIFY ${schema}_outbox`).finally(() => (notifying = false));
    };
    const unpublished = async () =>
      (await writer.query(`SELECT count(*)::int AS n FROM ${schema}.outbox WHERE published_at IS NULL`)).rows[0].n;
    const backendsCpu = async () => {
      const { rows } = await writer.query(`SELECT pid FROM pg_stat_activity WHERE application_name = $1`, [APP]);
      return rows.reduce((sum, r) => sum + procCpuMs(r.pid), 0);
    };

    if (process.env.RELAY_DRAIN) {
      // Rows already waiting, drained in batches of RELAY_BATCH: the cost of a round and of a row,
      // with the batch size fixed rather than left to timing.
      const total = Number(process.env.RELAY_DRAIN);
      for (let i = 0; i < total; i += 500) {
        await Promise.all(Array.from({ length: Math.min(500, total - i) }, writeOne));
      }
      const before = await ask('stats');
      const pgBefore = await backendsCpu();
      await ask('drain');
      const pgAfter = await backendsCpu();
      const after = await ask('stats');
      const rows = after.rows - before.rows;
      const rounds = after.rounds - before.rounds;
      const per1k = (ms) => ((1000 * ms) / Math.max(1, rows)).toFixed(1);
      console.log(
        `drain batch ${process.env.RELAY_BATCH}: ${rows} rows, ${rounds} rounds, ${after.statements - before.statements} statements, ${after.roundTrips - before.roundTrips} round trips; relay CPU ${per1k(after.cpuMs - before.cpuMs)} ms / 1k rows, its PostgreSQL ${per1k(pgAfter - pgBefore)} ms / 1k rows`,
      );
      await ask('stop');
      await notifier.end();
      return;
    }
    console.log(`relay bench: ${dist}, ${seconds} s per rate`);
    console.log(
      '| rows/s asked | rows published | rounds | rows per round | statements | round trips | relay CPU ms / 1k rows | its PostgreSQL CPU ms / 1k rows |',
    );
    console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const rate of rates) {
      const before = await ask('stats');
      const pgBefore = await backendsCpu();
      const started = Date.now();
      let due = 0;
      const inFlight = new Set();
      while (Date.now() - started < seconds * 1000) {
        const target = Math.floor(((Date.now() - started) / 1000) * rate);
        while (due < target) {
          due++;
          const p = writeOne().finally(() => inFlight.delete(p));
          inFlight.add(p);
        }
        await new Promise((r) => setTimeout(r, 2));
      }
      await Promise.all(inFlight);
      for (let i = 0; i < 200 && (await unpublished()) > 0; i++) await new Promise((r) => setTimeout(r, 50));
      const pgAfter = await backendsCpu();
      const after = await ask('stats');
      const rows = after.rows - before.rows;
      const rounds = after.rounds - before.rounds;
      const per1k = (ms) => ((1000 * ms) / Math.max(1, rows)).toFixed(1);
      console.log(
        `| ${rate} | ${rows} | ${rounds} | ${(rows / Math.max(1, rounds)).toFixed(1)} | ${after.statements - before.statements} | ${after.roundTrips - before.roundTrips} | ${per1k(after.cpuMs - before.cpuMs)} | ${per1k(pgAfter - pgBefore)} |`,
      );
    }
    await ask('stop');
    await notifier.end();
    await kafkaAdmin
      .deleteTopics({ topics: ['orders.events', 'orders.commands'].map((t) => prefix + t) })
      .catch(() => undefined);
    await kafkaAdmin.disconnect();
  } finally {
    child?.kill();
    await writer.end();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}

/** The relay's process: counts its statements and round trips, answers its figures. */
async function relayChild(dist, url, prefix) {
  process.env.TS_NODE_PROJECT = path.join(ROOT, 'tsconfig.dist.json');
  const distRequire = createRequire(path.join(dist, 'x.js'));
  const counts = { statements: 0, roundTrips: 0, rounds: 0, rows: 0 };
  /** @type {any} */
  const proto = require('pg').Client.prototype;
  const query = proto.query;
  proto.query = function (/** @type {any} */ config, /** @type {any[]} */ ...rest) {
    const text = typeof config === 'string' ? config : config?.text;
    if (typeof text === 'string') {
      counts.roundTrips++;
      counts.statements += text.split(/;\s*(?=[A-Z])/).length;
      if (text.includes('pg_try_advisory_xact_lock')) counts.rounds++;
      const m = /outbox SET published_at = now\(\) WHERE id = ANY\((?:'\{([^}]*)\}'|\$1)/.exec(text);
      if (m) counts.rows += m[1] !== undefined ? m[1].split(',').length : rest[0][0].length;
    }
    return query.apply(this, [config, ...rest]);
  };
  require('tsconfig-paths').register({ baseUrl: dist, paths: { '@payments/*': ['libs/*/src/index.js'] } });
  const { DataSource } = require('typeorm');
  const { OutboxRelay } = distRequire('./libs/messaging/src/outbox-relay.js');
  const { Logger } = require('@nestjs/common');
  Logger.overrideLogger(['error']);
  const appUrl = `${url}?application_name=${APP}`;
  const ds = new DataSource({ type: 'postgres', url: appUrl, entities: [], logging: false });
  await ds.initialize();
  let stopping = false;
  // Dropping the database at the end ends the relay's connections under it.
  process.on('uncaughtException', (err) => {
    if (!stopping) throw err;
  });
  const relay = new OutboxRelay({
    dataSource: ds,
    databaseUrl: appUrl,
    schema: 'svc',
    ...(process.env.RELAY_BATCH ? { batchSize: Number(process.env.RELAY_BATCH) } : {}),
    ...(process.env.RELAY_DRAIN ? { pollIntervalMs: 3_600_000 } : {}),
    ...(process.env.RELAY_LINGER_MS ? { lingerMs: Number(process.env.RELAY_LINGER_MS) } : {}),
    kafka: { brokers: BROKERS, clientId: APP, topicPrefix: prefix, replicationFactor: 1, logLevel: 'error' },
  });
  await relay.start();
  process.on('message', async (what) => {
    if (what === 'drain') await relay.drain();
    if (what === 'stop') {
      stopping = true;
      await relay.stop();
      await ds.destroy();
    }
    const u = process.cpuUsage();
    process.send?.({ ...counts, cpuMs: (u.user + u.system) / 1000 });
    if (what === 'stop') process.exit(0);
  });
}
