// The ceilings the benchmark compares against, measured on the same machine in the same run:
// - PostgreSQL: pgbench running the statements our services run per order (order-path.sql), in the
//   same transactions, at the same concurrency, on the bench database's real tables, each client
//   with a shop of its own (see order-path.sql's header);
// - Kafka: Apache Kafka's own ProducerPerformance at full speed, with our durability settings.
//
// `node tools/bench/ceilings.mjs <database URL> <shop id> [concurrency] [seconds] [shops]` runs the
// PostgreSQL one alone, against a database the services migrated and the shop they know (all four
// schemas must have its rows).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT } from '../stack/common.mjs';

const require = createRequire(import.meta.url);

/**
 * Runs a command to its end and resolves with its output; the run owns it meanwhile (its watchdog
 * stops it should the bench die first).
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ run?: import('../infra/process.mjs').Run, env?: NodeJS.ProcessEnv }} [opts]
 * @returns {Promise<string>}
 */
function runCapture(cmd, args, { run, ...opts } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    run?.own(child.pid);
    child.once('exit', () => run?.disown(child.pid));
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${cmd} exited ${code}: ${failureOf(out)}`)),
    );
  });
}

/** What a failed tool said, on one line: its first error line (PostgreSQL's ERROR and DETAIL), else its last line. */
function failureOf(out) {
  const lines = out.split('\n').map((l) => l.trim());
  const i = lines.findIndex((l) => /\b(ERROR|FATAL):|error:/.test(l));
  const said = i >= 0 ? lines.slice(i, i + 2).join(' ') : (lines.filter(Boolean).pop() ?? '');
  return said.slice(0, 300);
}

/** Orders a pgbench transaction of the script carries: the size of the batches it shares (order-path.sql). */
export const ORDERS_PER_SCRIPT_RUN = 8;

/**
 * The pgbench script of `orders` orders' lives from the template tools/bench/order-path.sql: each
 * `-- @each` … `-- @end` block once per order with `{n}` its number, `{list:TEXT:list}` as TEXT
 * for every order, comma-separated, `{E}` as `orders`. Comment lines are left out.
 * @param {string} template
 * @param {number} orders
 */
export function expandOrderPath(template, orders) {
  const numbers = Array.from({ length: orders }, (_, i) => String(i + 1));
  /** @type {string[]} */
  const out = [];
  /** @type {string[] | null} */
  let block = null;
  for (const line of template.split('\n')) {
    if (/^--\s*@each\s*$/.test(line)) {
      if (block) throw new Error('order-path.sql: an @each inside an @each');
      block = [];
    } else if (/^--\s*@end\s*$/.test(line)) {
      if (!block) throw new Error('order-path.sql: an @end without its @each');
      for (const n of numbers) out.push(...block.map((l) => l.replaceAll('{n}', n)));
      block = null;
    } else if (!/^\s*(--.*)?$/.test(line)) (block ?? out).push(line);
  }
  if (block) throw new Error('order-path.sql: an @each without its @end');
  return (
    out
      .join('\n')
      .replace(/\{list:([\s\S]*?):list\}/g, (_, text) => numbers.map((n) => text.replaceAll('{n}', n)).join(', '))
      .replaceAll('{E}', String(orders)) + '\n'
  );
}

/**
 * The shop ids and API key hashes pgbench's clients derive from `:client_id % :shops`
 * (order-path.sql's first statement), for shops 0 … (`count`th parameter) − 1.
 */
const clientShops = (count) => `SELECT n, ('b0000000-0000-4000-8000-' || lpad(n::text, 12, '0'))::uuid AS id,
    encode(sha256(convert_to('pgbench-ceiling-' || n, 'UTF8')), 'hex') AS key_hash
  FROM generate_series(0, ${count}::int - 1) n`;

/**
 * Clones the bench's shop `shops` times in every schema that keeps shop rows the script reads or
 * locks — gateway (shop, API key), orders (settings), merchant-callbacks (settings, feed head) —
 * runs `fn`, then removes the clones but their feed heads. The orders and deliveries pgbench wrote
 * stay, and so the feed heads counting their positions: they are the bench database's, which the
 * bench removes.
 * @template T
 * @param {{ databaseUrl: string, shop: string, shops: number }} o
 * @param {() => Promise<T>} fn
 * @returns {Promise<T>}
 */
async function withClientShops({ databaseUrl, shop, shops }, fn) {
  const { Client } = require('pg');
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  /** Copies the shop's row of `table` (key column `key`) with the clone's id and `extra` columns. */
  const clone = (table, key, extra = '') =>
    client.query(
      `INSERT INTO ${table}
       SELECT (jsonb_populate_record(NULL::${table}, to_jsonb(s) || jsonb_build_object('${key}', c.id${extra}))).*
         FROM ${table} s, (${clientShops('$2')}) c WHERE s.${key} = $1 ON CONFLICT DO NOTHING`,
      [shop, shops],
    );
  const remove = async () => {
    for (const [table, key] of [
      ['gateway.api_keys', 'shop_id'],
      ['gateway.shops', 'id'],
      ['orders.shop_settings', 'shop_id'],
      ['merchant_callbacks.shops', 'shop_id'],
    ])
      await client.query(`DELETE FROM ${table} WHERE ${key} IN (SELECT id FROM (${clientShops('$1')}) c)`, [shops]);
  };
  try {
    await clone('gateway.shops', 'id', `, 'name', 'pgbench ceiling ' || c.n`);
    await client.query(
      `INSERT INTO gateway.api_keys (id, shop_id, key_hash, key_prefix)
       SELECT gen_random_uuid(), c.id, c.key_hash, 'pgbench' FROM (${clientShops('$1')}) c ON CONFLICT DO NOTHING`,
      [shops],
    );
    await clone('orders.shop_settings', 'shop_id', `, 'settings', s.settings || jsonb_build_object('shopId', c.id)`);
    await clone('merchant_callbacks.shops', 'shop_id');
    // The feed heads stay afterwards, like the deliveries whose positions they count (a run after
    // this one on the same database goes on from them).
    await client.query(
      `INSERT INTO merchant_callbacks.feed_heads (shop_id, last_position)
       SELECT c.id, COALESCE((SELECT max(d.feed_position) FROM merchant_callbacks.deliveries d WHERE d.shop_id = c.id), 0)
         FROM (${clientShops('$1')}) c ON CONFLICT DO NOTHING`,
      [shops],
    );
    // A schema without the bench shop's row (its settings event not consumed yet) would fail the run later, less clearly.
    const { rows } = await client.query(
      `WITH c AS (${clientShops('$1')})
       SELECT (SELECT count(*) FROM gateway.api_keys k JOIN gateway.shops s ON s.id = k.shop_id JOIN c ON c.key_hash = k.key_hash)::int AS gateway,
              (SELECT count(*) FROM orders.shop_settings s JOIN c ON c.id = s.shop_id)::int AS orders,
              (SELECT count(*) FROM merchant_callbacks.shops s JOIN c ON c.id = s.shop_id)::int AS "merchant-callbacks"`,
      [shops],
    );
    const missing = Object.entries(rows[0] ?? {}).filter(([, n]) => n !== shops);
    if (missing.length > 0)
      throw new Error(
        `the shop ${shop} could not be cloned ${shops} times in ${missing.map(([schema, n]) => `${schema} (${n})`).join(', ')}`,
      );
    return await fn();
  } finally {
    await remove().catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}

/**
 * Orders per second PostgreSQL sustains doing only our per-order statements: pgbench with the
 * script expanded from order-path.sql, `concurrency` clients over `shops` shops (one each unless
 * told), cloned from the bench's shop `shop`.
 * @param {{ databaseUrl: string, concurrency: number, seconds: number, shop: string, shops?: number,
 *   log: (line: string) => void, run?: import('../infra/process.mjs').Run }} o
 */
export async function postgresCeiling({ databaseUrl, concurrency, seconds, shop, shops = concurrency, log, run }) {
  const orders = ORDERS_PER_SCRIPT_RUN;
  const script = path.join(ROOT, '.run', 'bench', 'order-path.pgbench.sql');
  mkdirSync(path.dirname(script), { recursive: true });
  writeFileSync(script, expandOrderPath(readFileSync(path.join(ROOT, 'tools/bench/order-path.sql'), 'utf8'), orders));
  const jobs = Math.min(concurrency, 2);
  log(
    `pgbench -c ${concurrency} -j ${jobs} -T ${seconds} -D shops=${shops} -f ${path.relative(ROOT, script)} (tools/bench/order-path.sql, ${orders} orders a run)`,
  );
  const out = await withClientShops({ databaseUrl, shop, shops }, () =>
    runCapture(
      'pgbench',
      [
        '-n',
        '-c',
        String(concurrency),
        '-j',
        String(jobs),
        '-T',
        String(seconds),
        '-D',
        `shops=${shops}`,
        '-f',
        script,
        databaseUrl,
      ],
      { run },
    ),
  );
  const tps = Number(/tps = ([\d.]+)/.exec(out)?.[1]);
  if (!Number.isFinite(tps)) throw new Error(`could not read pgbench's tps: ${out.slice(-300)}`);
  // one pgbench "transaction" of the script is the whole lives of `orders` orders
  return { ordersPerSecond: tps * orders, tps, shops };
}

/** Resolves Kafka's tools jars (kept apart from the broker's classpath) once. */
async function perfLib(log, run) {
  const lib = path.join(ROOT, 'tools/kafka/target/perf-lib');
  if (existsSync(path.join(lib, 'kafka-tools-4.3.1.jar'))) return lib;
  log('resolving Kafka tools jars with Maven (once)…');
  await runCapture(
    'mvn',
    ['-q', '-B', '-f', 'tools/kafka/perf/pom.xml', `-Dperf.lib.dir=${lib}`, 'dependency:copy-dependencies'],
    {
      env: { ...process.env, MAVEN_OPTS: process.env.MAVEN_OPTS ?? '-Xmx384m -XX:+UseSerialGC' },
      run,
    },
  );
  return lib;
}

/** Records per second the broker takes from its own Java producer with our durability settings. */
export async function kafkaCeiling({
  brokers,
  topic,
  recordSize = 700,
  records = 300_000,
  messagesPerOrder,
  log,
  run,
}) {
  const lib = await perfLib(log, run);
  const cp = path.join(lib, '*');
  const java = ['-Xmx256m', '-XX:+UseSerialGC', '-cp', cp];
  await runCapture(
    'java',
    [
      ...java,
      'org.apache.kafka.tools.TopicCommand',
      '--bootstrap-server',
      brokers,
      '--create',
      '--if-not-exists',
      '--topic',
      topic,
      '--partitions',
      '8',
    ],
    { run },
  );
  log(`ProducerPerformance: ${records} records of ${recordSize} bytes, acks=all, idempotent`);
  const out = await runCapture(
    'java',
    [
      ...java,
      'org.apache.kafka.tools.ProducerPerformance',
      '--topic',
      topic,
      '--num-records',
      String(records),
      '--record-size',
      String(recordSize),
      '--throughput',
      '-1',
      '--command-property',
      `bootstrap.servers=${brokers}`,
      'acks=all',
      'enable.idempotence=true',
      'linger.ms=5',
    ],
    { run },
  );
  const summary =
    out
      .split('\n')
      .filter((l) => /records sent/.test(l))
      .pop() ?? '';
  const recordsPerSecond = Number(/records sent, ([\d.]+) records\/sec/.exec(summary)?.[1]);
  if (!Number.isFinite(recordsPerSecond))
    throw new Error(`could not read ProducerPerformance's rate: ${out.slice(-300)}`);
  return { recordsPerSecond, recordSize, messagesPerOrder };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [databaseUrl, shop, concurrency = '64', seconds = '10', shops] = process.argv.slice(2);
  if (!databaseUrl || !shop) {
    console.error('usage: node tools/bench/ceilings.mjs <database URL> <shop id> [concurrency] [seconds] [shops]');
    process.exit(2);
  }
  const c = Number(concurrency);
  postgresCeiling({
    databaseUrl,
    shop,
    concurrency: c,
    seconds: Number(seconds),
    shops: shops ? Number(shops) : c,
    log: (m) => console.log(`[ceiling] ${m}`),
  }).then(
    (r) =>
      console.log(
        `[ceiling] ${r.ordersPerSecond.toFixed(1)} orders/s (pgbench ${r.tps.toFixed(2)} tps, ${r.shops} shops)`,
      ),
    (err) => {
      console.error(`[ceiling] ${err.message}`);
      process.exit(1);
    },
  );
}
