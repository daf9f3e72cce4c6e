// The ceilings the benchmark compares against, measured on the same machine in the same run:
// - PostgreSQL: pgbench running the statements our services run per order (order-path.sql), in the
//   same transactions, at the same concurrency, on the bench database's real tables;
// - Kafka: Apache Kafka's own ProducerPerformance at full speed, with our durability settings.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../stack/common.mjs';

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

/** Orders per second PostgreSQL sustains doing only our per-order statements. */
export async function postgresCeiling({ databaseUrl, concurrency, seconds, vars = {}, log, run }) {
  const script = path.join(ROOT, 'tools/bench/order-path.sql');
  const jobs = Math.min(concurrency, 2);
  log(`pgbench -c ${concurrency} -j ${jobs} -T ${seconds} -f tools/bench/order-path.sql`);
  const defines = Object.entries(vars).flatMap(([k, v]) => ['-D', `${k}=${v}`]);
  const out = await runCapture(
    'pgbench',
    ['-n', '-c', String(concurrency), '-j', String(jobs), '-T', String(seconds), ...defines, '-f', script, databaseUrl],
    { run },
  );
  const tps = Number(/tps = ([\d.]+)/.exec(out)?.[1]);
  if (!Number.isFinite(tps)) throw new Error(`could not read pgbench's tps: ${out.slice(-300)}`);
  // one pgbench "transaction" of the script is one order's whole life
  return { ordersPerSecond: tps };
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
