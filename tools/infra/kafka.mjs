#!/usr/bin/env node
// Local single-node Kafka (KRaft, broker+controller in one JVM) for dev and tests.
//
//   node tools/infra/kafka.mjs ensure    # start (or reuse) the broker, print its bootstrap address
//   node tools/infra/kafka.mjs status    # JSON status; exit 0 when the broker answers, 1 otherwise
//   node tools/infra/kafka.mjs stop      # SIGTERM the broker from .run/kafka/broker.pid (SIGKILL after 20 s)
//   node tools/infra/kafka.mjs reset     # stop and delete .run/kafka/data
//   node tools/infra/kafka.mjs version   # print the pinned Kafka version (from tools/kafka/pom.xml)
//
// As a module:
//   import { ensureKafka, ensureTopics, stopKafka } from './tools/infra/kafka.mjs';
//   const { brokers, startedByUs, stop } = await ensureKafka({ rootDir, log });
//
// A broker of the caller's own (the fault suite kills and restarts one): give its ports, run dir
// and heap; KAFKA_BROKERS and the shared broker on 19092 are then never looked at, and calling
// ensureKafka again with the same options restarts it on the same data.
//   await ensureKafka({ rootDir, port, controllerPort, runDir: '.run/faults/kafka', heap: ['-Xmx384m', '-Xms128m'] });
//   await stopKafka({ rootDir, runDir, signal: 'SIGKILL' });
//
// Only Node builtins plus kafkajs (from node_modules, loaded lazily). The broker jars come from
// Maven Central via tools/kafka/pom.xml (see tools/kafka/README.md).

import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { pidAlive, pidRuns, readPid, sleep, withLock } from './process.mjs';

const SCRIPT_DIR = path.dirname(fileURLToPath(import.meta.url));
export const DEFAULT_ROOT_DIR = path.resolve(SCRIPT_DIR, '..', '..');

export const KAFKA_HOST = '127.0.0.1';
export const KAFKA_PORT = 19092;
export const CONTROLLER_PORT = 19093;
export const DEFAULT_BROKERS = `${KAFKA_HOST}:${KAFKA_PORT}`;

const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 20_000;
const LOCK_TIMEOUT_MS = 300_000; // a cold mvn resolve + first start can take a while
const JVM_HEAP = ['-Xmx512m', '-Xms256m'];

/** @param {string} msg */
const defaultLog = (msg) => void process.stderr.write(`[kafka] ${msg}\n`);

/** All file locations, derived from rootDir (the jars) and runDir (one broker's config, data, pid, log). */
export function kafkaPaths(rootDir = DEFAULT_ROOT_DIR, runDir = path.join(rootDir, '.run', 'kafka')) {
  const toolsDir = path.join(rootDir, 'tools', 'kafka');
  runDir = path.resolve(rootDir, runDir);
  return {
    rootDir,
    toolsDir,
    pom: path.join(toolsDir, 'pom.xml'),
    log4jConfig: path.join(toolsDir, 'log4j2.properties'),
    libDir: path.join(toolsDir, 'target', 'lib'),
    stampFile: path.join(toolsDir, 'target', 'lib', '.resolved'),
    runDir,
    dataDir: path.join(runDir, 'data'),
    propsFile: path.join(runDir, 'server.properties'),
    pidFile: path.join(runDir, 'broker.pid'),
    logFile: path.join(runDir, 'broker.log'),
    lockFile: path.join(runDir, 'ensure.lock'),
  };
}

/** The pinned Kafka version: the <kafka.version> property of tools/kafka/pom.xml (single source of truth). */
export function readKafkaVersion(rootDir = DEFAULT_ROOT_DIR) {
  const pom = fs.readFileSync(kafkaPaths(rootDir).pom, 'utf8');
  const m = pom.match(/<kafka\.version>\s*([^<\s]+)\s*<\/kafka\.version>/);
  if (!m) throw new Error('tools/kafka/pom.xml has no <kafka.version> property');
  return m[1];
}

// ---------------------------------------------------------------------------------------------
// small process / network helpers

function tcpCheck(host, port, timeoutMs = 1000) {
  return new Promise((resolve) => {
    const sock = net.connect({ host, port });
    const done = (ok) => {
      sock.removeAllListeners();
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}

/** true if pid is alive and (where /proc exists) really is a kafka.Kafka JVM; guards against pid reuse. */
function isKafkaPid(pid) {
  return pidRuns(pid, 'kafka.Kafka');
}

function tail(file, lines = 60) {
  try {
    const buf = fs.readFileSync(file, 'utf8');
    return buf.split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

function javaBin() {
  return process.env.JAVA_HOME ? path.join(process.env.JAVA_HOME, 'bin', 'java') : 'java';
}

function checkJava() {
  const r = spawnSync(javaBin(), ['-version'], { encoding: 'utf8' });
  if (r.error)
    throw new Error(`cannot run java (${r.error.message}); Kafka needs a Java 17+ runtime on PATH or JAVA_HOME`);
  const m = (r.stderr || '').match(/version "(\d+)(?:\.(\d+))?/);
  const major = m ? (m[1] === '1' ? Number(m[2]) : Number(m[1])) : NaN;
  if (!(major >= 17)) throw new Error(`Kafka 4.x needs Java 17+, found: ${(r.stderr || '').split('\n')[0]}`);
}

function loadKafkajs(rootDir) {
  // Prefer the project's node_modules (rootDir), fall back to wherever this script resolves it.
  for (const base of [path.join(rootDir, 'package.json'), import.meta.url]) {
    try {
      return createRequire(base)('kafkajs');
    } catch {
      /* try next */
    }
  }
  throw new Error('kafkajs is not installed (npm ci)');
}

function brokerList(brokers) {
  return (Array.isArray(brokers) ? brokers : String(brokers).split(',')).map((b) => b.trim()).filter(Boolean);
}

function newAdmin(brokers, rootDir = DEFAULT_ROOT_DIR, { quiet = true } = {}) {
  const { Kafka, logLevel } = loadKafkajs(rootDir);
  const kafka = new Kafka({
    clientId: 'payments-infra',
    brokers: brokerList(brokers),
    connectionTimeout: 3000,
    requestTimeout: 10000,
    logLevel: quiet ? logLevel.NOTHING : logLevel.ERROR,
    retry: { retries: quiet ? 0 : 5, initialRetryTime: 200 },
  });
  return kafka.admin();
}

/** One readiness probe: admin connect + describeCluster + listTopics. Resolves true/false, never throws. */
async function probeKafka(brokers, rootDir) {
  const admin = newAdmin(brokers, rootDir);
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    await admin.listTopics();
    return cluster.brokers.length > 0;
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(() => {});
  }
}

// ---------------------------------------------------------------------------------------------
// maven resolve

function pomHash(paths) {
  return createHash('sha256').update(fs.readFileSync(paths.pom)).digest('hex').slice(0, 16);
}

function libUpToDate(paths, version) {
  try {
    const stamp = JSON.parse(fs.readFileSync(paths.stampFile, 'utf8'));
    return (
      stamp.version === version &&
      stamp.pom === pomHash(paths) &&
      fs.existsSync(path.join(paths.libDir, `kafka_2.13-${version}.jar`))
    );
  } catch {
    return false;
  }
}

/** Resolve the broker jars into tools/kafka/target/lib unless already there for this version/pom. */
/** @param {{ rootDir?: string, log?: (msg: string) => void, force?: boolean }} [opts] */
export async function resolveKafkaJars({ rootDir = DEFAULT_ROOT_DIR, log = defaultLog, force = false } = {}) {
  const paths = kafkaPaths(rootDir);
  const version = readKafkaVersion(rootDir);
  if (!force && libUpToDate(paths, version)) return { version, libDir: paths.libDir, resolved: false };

  const tmpLib = `${paths.libDir}.tmp-${process.pid}`;
  fs.rmSync(tmpLib, { recursive: true, force: true });
  log(`resolving Kafka ${version} jars with Maven (missing, or built for another version/pom) ...`);
  const t0 = Date.now();
  const env = { ...process.env };
  if (!env.MAVEN_OPTS) env.MAVEN_OPTS = '-Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1';
  const args = ['-q', '-B', '-f', paths.pom, `-Dkafka.lib.dir=${tmpLib}`, 'dependency:copy-dependencies'];
  const code = await new Promise((resolve, reject) => {
    const child = spawn('mvn', args, { cwd: paths.toolsDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', (e) => reject(new Error(`cannot run mvn (${e.message}); Maven 3.8+ must be on PATH`)));
    child.on('close', (c) => {
      if (c !== 0) log(`mvn output:\n${out.replace(/\x1b\[[0-9;]*m/g, '')}`);
      resolve(c);
    });
  });
  if (code !== 0) {
    fs.rmSync(tmpLib, { recursive: true, force: true });
    throw new Error(`mvn dependency:copy-dependencies failed (exit ${code}) for Kafka ${version}`);
  }
  if (!fs.existsSync(path.join(tmpLib, `kafka_2.13-${version}.jar`))) {
    throw new Error(`mvn finished but ${tmpLib} has no kafka_2.13-${version}.jar`);
  }
  fs.writeFileSync(
    path.join(tmpLib, '.resolved'),
    JSON.stringify({ version, pom: pomHash(paths), at: new Date().toISOString() }) + '\n',
  );
  // swap in atomically-ish: never leave a lib dir with jars of two versions on the classpath
  const oldLib = `${paths.libDir}.old-${process.pid}`;
  if (fs.existsSync(paths.libDir)) fs.renameSync(paths.libDir, oldLib);
  fs.renameSync(tmpLib, paths.libDir);
  fs.rmSync(oldLib, { recursive: true, force: true });
  log(`resolved Kafka ${version} jars in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return { version, libDir: paths.libDir, resolved: true };
}

// ---------------------------------------------------------------------------------------------
// broker config / storage

export function serverProperties(paths, { port = KAFKA_PORT, controllerPort = CONTROLLER_PORT } = {}) {
  return `# Generated by tools/infra/kafka.mjs on every start; edit the script, not this file.
# Single-node KRaft: this JVM is both broker and controller.
node.id=1
process.roles=broker,controller
controller.quorum.voters=1@${KAFKA_HOST}:${controllerPort}
listeners=PLAINTEXT://${KAFKA_HOST}:${port},CONTROLLER://${KAFKA_HOST}:${controllerPort}
advertised.listeners=PLAINTEXT://${KAFKA_HOST}:${port}
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=${paths.dataDir}

# single node: every internal topic has RF 1 and few partitions
offsets.topic.num.partitions=1
offsets.topic.replication.factor=1
transaction.state.log.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.num.partitions=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
default.replication.factor=1
min.insync.replicas=1

# test friendliness
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
delete.topic.enable=true
num.partitions=8

# after a crash (SIGKILL) the controller keeps the old broker registration until its session
# expires; the default 9 s session made every unclean restart ~10 s slower
broker.heartbeat.interval.ms=1000
broker.session.timeout.ms=4000

# small footprint (2-core dev boxes / CI)
num.network.threads=2
num.io.threads=2
background.threads=2
num.recovery.threads.per.data.dir=1
num.replica.fetchers=1
log.cleaner.threads=1
log.cleaner.dedupe.buffer.size=8388608
log.retention.hours=24
log.retention.check.interval.ms=60000
log.segment.bytes=16777216
log.index.size.max.bytes=1048576
socket.send.buffer.bytes=102400
socket.receive.buffer.bytes=102400
socket.request.max.bytes=104857600
`;
}

function newClusterId() {
  return randomBytes(16).toString('base64url'); // 22 chars, like kafka-storage random-uuid
}

/** Formats `paths.dataDir` for KRaft with a new cluster id (or the one given: tests); false when it already was. */
export function formatStorage(paths, log, clusterId = newClusterId()) {
  if (fs.existsSync(path.join(paths.dataDir, 'meta.properties'))) return false;
  // No meta.properties: never formatted, or a format that died half-way. Start clean.
  fs.rmSync(paths.dataDir, { recursive: true, force: true });
  fs.mkdirSync(paths.dataDir, { recursive: true });
  log(`formatting KRaft storage ${path.relative(paths.rootDir, paths.dataDir)} (cluster id ${clusterId})`);
  // controller.quorum.voters is set (static quorum), so no --standalone / --initial-controllers.
  const r = spawnSync(
    javaBin(),
    [
      '-Xmx256m',
      '-XX:+UseSerialGC',
      '-XX:TieredStopAtLevel=1',
      `-Dlog4j2.configurationFile=${paths.log4jConfig}`,
      `-Dkafka.logs.dir=${paths.runDir}`,
      '-cp',
      path.join(paths.libDir, '*'),
      'kafka.tools.StorageTool',
      'format',
      // One argument with '=': a base64url id may start with '-', which as a separate argument
      // the tool's parser takes for an option (one id in 64 failed to format).
      `--cluster-id=${clusterId}`,
      '-c',
      paths.propsFile,
    ],
    { encoding: 'utf8', timeout: 120_000 },
  );
  if (r.status !== 0) {
    throw new Error(
      `kafka StorageTool format failed (exit ${r.status}${r.error ? `, ${r.error.message}` : ''}):\n${r.stdout}\n${r.stderr}\n${tail(paths.logFile, 20)}`,
    );
  }
  return true;
}

/** @typedef {{ code: number | null, signal: string | null, error?: Error }} Exited */

/**
 * @param {ReturnType<typeof kafkaPaths>} paths
 * @param {string} version
 * @returns {{ pid: number, exited: () => Exited | null }}
 */
function startJvm(paths, version, heap = JVM_HEAP) {
  fs.appendFileSync(
    paths.logFile,
    `\n===== ${new Date().toISOString()} starting Kafka ${version} (tools/infra/kafka.mjs, parent pid ${process.pid}) =====\n`,
  );
  const fd = fs.openSync(paths.logFile, 'a');
  const args = [
    ...heap,
    '-XX:+UseG1GC',
    '-XX:MaxGCPauseMillis=20',
    '-XX:InitiatingHeapOccupancyPercent=35',
    '-XX:+ExplicitGCInvokesConcurrent',
    '-XX:MaxDirectMemorySize=256m',
    '-Xss512k',
    '-Djava.awt.headless=true',
    '-Djava.net.preferIPv4Stack=true',
    `-Dlog4j2.configurationFile=${paths.log4jConfig}`,
    `-Dkafka.logs.dir=${paths.runDir}`,
    // keep logging alive during Kafka's own shutdown hook (controlled shutdown messages)
    '-Dlog4j2.shutdownHookEnabled=false',
    '-cp',
    path.join(paths.libDir, '*'),
    'kafka.Kafka',
    paths.propsFile,
  ];
  const child = spawn(javaBin(), args, { cwd: paths.runDir, detached: true, stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  /** @type {Exited | null} */
  let exited = null;
  child.on('exit', (code, signal) => (exited = { code, signal }));
  child.on('error', (e) => (exited = { code: null, signal: null, error: e }));
  child.unref();
  fs.writeFileSync(paths.pidFile, `${child.pid}\n`);
  return { pid: /** @type {number} */ (child.pid), exited: () => exited };
}

/**
 * @param {{ brokers: string, pid: number, exited?: () => Exited | null,
 *   timeoutMs: number, rootDir: string, port?: number }} opts
 */
async function waitReady({ brokers, pid, exited, timeoutMs, rootDir, port = KAFKA_PORT }) {
  const t0 = Date.now();
  while (Date.now() - t0 < timeoutMs) {
    const ex = exited?.();
    if (ex || (pid && !pidAlive(pid))) {
      return {
        ok: false,
        why: `broker process ${pid} exited early (${ex ? JSON.stringify({ code: ex.code, signal: ex.signal }) : 'gone'})`,
      };
    }
    if (await tcpCheck(KAFKA_HOST, port, 500)) {
      if (await probeKafka(brokers, rootDir)) return { ok: true, ms: Date.now() - t0 };
    }
    await sleep(500);
  }
  return { ok: false, why: `broker did not accept clients within ${Math.round(timeoutMs / 1000)} s` };
}

/**
 * Create the internal topics now (__consumer_offsets via FindCoordinator(GROUP), __transaction_state
 * via a transactional producer's FindCoordinator(TRANSACTION) + InitProducerId) so the first consumer group
 * or producer of a test run does not pay for it and kafkajs does not log
 * "coordinator is loading / not available" errors. Best effort.
 */
async function warmUp(brokers, rootDir, log) {
  const t0 = Date.now();
  const { Kafka, logLevel } = loadKafkajs(rootDir);
  const kafka = new Kafka({
    clientId: 'payments-infra-warmup',
    brokers: brokerList(brokers),
    logLevel: logLevel.NOTHING,
    retry: { retries: 20, initialRetryTime: 100, maxRetryTime: 1000 },
  });
  const admin = kafka.admin();
  // transactional => FindCoordinator(TRANSACTION) creates __transaction_state, then InitProducerId
  const producer = kafka.producer({
    transactionalId: '__payments_infra_warmup',
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: () => () => 0,
  });
  try {
    await admin.connect();
    await admin.describeGroups(['__payments_infra_warmup']);
    await producer.connect();
    const tx = await producer.transaction(); // InitProducerId through the transaction coordinator
    await tx.abort();
    log(`warmed up group/transaction coordinators in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  } catch (e) {
    log(`warm-up skipped: ${/** @type {Error} */ (e).message}`);
  } finally {
    await Promise.allSettled([producer.disconnect(), admin.disconnect()]);
  }
}

// ---------------------------------------------------------------------------------------------
// public API

/**
 * Stop the broker recorded in <runDir>/broker.pid (default .run/kafka): SIGTERM, wait up to 20 s,
 * then SIGKILL. With signal 'SIGKILL' it is killed at once, as a crash (the fault suite).
 * @param {{ rootDir?: string, runDir?: string, log?: (msg: string) => void, timeoutMs?: number, signal?: NodeJS.Signals }} [opts]
 * @returns {Promise<boolean>} true if a running broker was stopped
 */
export async function stopKafka({
  rootDir = DEFAULT_ROOT_DIR,
  runDir,
  log = defaultLog,
  timeoutMs = STOP_TIMEOUT_MS,
  signal = 'SIGTERM',
} = {}) {
  const paths = kafkaPaths(rootDir, runDir);
  const pid = readPid(paths.pidFile);
  if (pid === null || !isKafkaPid(pid)) {
    if (pid !== null) log(`removing stale pid file (pid ${pid} is not a running broker)`);
    fs.rmSync(paths.pidFile, { force: true });
    return false;
  }
  log(`${signal === 'SIGKILL' ? 'killing (SIGKILL)' : 'stopping'} broker pid ${pid} ...`);
  const t0 = Date.now();
  try {
    process.kill(pid, signal);
  } catch {
    /* already gone */
  }
  while (pidAlive(pid) && Date.now() - t0 < timeoutMs) await sleep(200);
  if (pidAlive(pid)) {
    log(`broker pid ${pid} still alive after ${timeoutMs / 1000} s, sending SIGKILL`);
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
    const t1 = Date.now();
    while (pidAlive(pid) && Date.now() - t1 < 5000) await sleep(100);
  }
  fs.rmSync(paths.pidFile, { force: true });
  log(`broker stopped in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return true;
}

/**
 * Make sure a Kafka broker is reachable.
 *  1. $KAFKA_BROKERS set            -> use it as is (startedByUs=false)
 *  2. broker on 127.0.0.1:19092     -> reuse it       (startedByUs=false)
 *  3. otherwise resolve jars (mvn, once), format storage (once), start a detached JVM, wait until ready.
 *
 * port, controllerPort, runDir and heap ask for a broker of the caller's own (defaults: 19092,
 * 19093, .run/kafka, -Xmx512m -Xms256m). When port is given, $KAFKA_BROKERS is ignored, and with
 * keepData a start that fails on existing data throws instead of starting over on fresh storage
 * (a restart after a crash must come back with what it had).
 *
 * @param {{ rootDir?: string, log?: (msg: string) => void, timeoutMs?: number, port?: number,
 *   controllerPort?: number, runDir?: string, heap?: string[], keepData?: boolean }} [opts]
 * @returns {Promise<{ brokers: string, startedByUs: boolean, pid?: number, stop: () => Promise<void> }>}
 *          pid: the broker's JVM (leader of its own process group) when this call started it.
 *          stop() stops the broker only if this call started it; otherwise it is a no-op.
 */
export async function ensureKafka({
  rootDir = DEFAULT_ROOT_DIR,
  log = defaultLog,
  timeoutMs = READY_TIMEOUT_MS,
  port,
  controllerPort = CONTROLLER_PORT,
  runDir,
  heap = JVM_HEAP,
  keepData = false,
} = {}) {
  log = log || (() => {});
  const noop = async () => {};
  if (process.env.KAFKA_BROKERS && port === undefined) {
    return { brokers: process.env.KAFKA_BROKERS, startedByUs: false, stop: noop };
  }
  port ??= KAFKA_PORT;
  const brokers = `${KAFKA_HOST}:${port}`;
  const paths = kafkaPaths(rootDir, runDir);

  // fast path without the lock: a healthy broker is already there
  if ((await tcpCheck(KAFKA_HOST, port)) && (await probeKafka(brokers, rootDir))) {
    const pid = readPid(paths.pidFile);
    log(
      `reusing broker at ${brokers}${pid && isKafkaPid(pid) ? ` (pid ${pid})` : ' (not started from this checkout)'}`,
    );
    return { brokers, startedByUs: false, stop: noop };
  }

  // the lock: parallel callers (several test runners) must not start two brokers
  return withLock(paths.lockFile, { log, timeoutMs: LOCK_TIMEOUT_MS }, async () => {
    // re-check under the lock: someone may have just started it, or it is still starting
    if ((await tcpCheck(KAFKA_HOST, port)) && (await probeKafka(brokers, rootDir))) {
      log(`reusing broker at ${brokers} (started by a concurrent caller)`);
      return { brokers, startedByUs: false, stop: noop };
    }
    const existingPid = readPid(paths.pidFile);
    if (existingPid !== null && isKafkaPid(existingPid)) {
      log(`broker pid ${existingPid} is running but not ready yet, waiting ...`);
      const r = await waitReady({ brokers, pid: existingPid, timeoutMs, rootDir, port });
      if (r.ok) return { brokers, startedByUs: false, stop: noop };
      throw new Error(
        `existing broker pid ${existingPid} is not usable: ${r.why}\n--- ${paths.logFile} (tail) ---\n${tail(paths.logFile)}`,
      );
    }
    if (existingPid !== null) {
      log(`removing stale pid file (pid ${existingPid} is not a running broker)`);
      fs.rmSync(paths.pidFile, { force: true });
    }
    if (await tcpCheck(KAFKA_HOST, port)) {
      if (await probeKafka(brokers, rootDir)) return { brokers, startedByUs: false, stop: noop };
      throw new Error(
        `port ${port} is in use by something that is not a usable Kafka broker (set KAFKA_BROKERS to use another broker)`,
      );
    }
    if (await tcpCheck(KAFKA_HOST, controllerPort)) {
      throw new Error(`controller port ${controllerPort} is already in use by another process`);
    }

    checkJava();
    const { version } = await resolveKafkaJars({ rootDir, log });
    fs.mkdirSync(paths.runDir, { recursive: true });
    fs.writeFileSync(paths.propsFile, serverProperties(paths, { port, controllerPort }));

    const attempt = async () => {
      const formatted = formatStorage(paths, log);
      const t0 = Date.now();
      log(
        `starting Kafka ${version} broker (log: ${path.relative(process.cwd(), paths.logFile) || paths.logFile}) ...`,
      );
      const { pid, exited } = startJvm(paths, version, heap);
      const r = await waitReady({ brokers, pid, exited, timeoutMs, rootDir, port });
      if (r.ok) {
        log(`broker pid ${pid} ready at ${brokers} after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
        await warmUp(brokers, rootDir, log);
        return { ok: true };
      }
      // don't leave a half-started JVM around
      if (pidAlive(pid)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* gone */
        }
        const t1 = Date.now();
        while (pidAlive(pid) && Date.now() - t1 < 5000) await sleep(100);
      }
      fs.rmSync(paths.pidFile, { force: true });
      return { ok: false, why: r.why, formatted };
    };

    let r = await attempt();
    if (!r.ok && !r.formatted && !keepData) {
      // Existing data dir (e.g. from a crashed run or another Kafka version) may be the problem:
      // move it aside and retry once on fresh storage. It is dev/test data only.
      const aside = path.join(paths.runDir, 'data.broken');
      log(
        `start on existing data failed (${r.why}); moving data to ${path.relative(paths.rootDir, aside)} and retrying on fresh storage`,
      );
      fs.rmSync(aside, { recursive: true, force: true });
      fs.renameSync(paths.dataDir, aside);
      r = await attempt();
    }
    if (!r.ok) {
      throw new Error(
        `Kafka broker failed to start: ${r.why}\n--- ${paths.logFile} (tail) ---\n${tail(paths.logFile)}`,
      );
    }
    return {
      brokers,
      startedByUs: true,
      pid: readPid(paths.pidFile) ?? undefined,
      stop: async () => {
        await stopKafka({ rootDir, runDir, log });
      },
    };
  });
}

/**
 * Create the missing topics (replication factor 1) and wait until every partition of every
 * requested topic has a leader. Idempotent; safe to call concurrently.
 * Existing topics are left alone (a warning is logged if they have fewer partitions than asked).
 *
 * @param {string | string[]} brokers  "host:port[,host:port]" or an array
 * @param {{ topic: string, numPartitions?: number, configEntries?: { name: string, value: string }[] }[]} topics
 * @param {{ log?: (msg: string) => void, timeoutMs?: number, rootDir?: string }} [opts]
 * @returns {Promise<string[]>} names of the topics this call created
 */
export async function ensureTopics(
  brokers,
  topics,
  { log = defaultLog, timeoutMs = 30_000, rootDir = DEFAULT_ROOT_DIR } = {},
) {
  log = log || (() => {});
  if (!topics?.length) return [];
  const admin = newAdmin(brokers, rootDir, { quiet: false });
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t.topic));
    const created = [];
    if (missing.length) {
      try {
        // Leaders are awaited below, with our own timeout: kafkajs' own wait gave up with
        // UNKNOWN_TOPIC_OR_PARTITION on a busy broker (the fault suite failed to start in CI).
        await admin.createTopics({
          waitForLeaders: false,
          timeout: timeoutMs,
          topics: missing.map((t) => ({
            topic: t.topic,
            numPartitions: t.numPartitions ?? 8,
            replicationFactor: 1,
            configEntries: t.configEntries ?? [],
          })),
        });
      } catch (e) {
        // a concurrent caller created some of them first: fine
        const errs = /** @type {any} */ (e).errors ?? [e];
        if (!errs.every((/** @type {any} */ x) => x.type === 'TOPIC_ALREADY_EXISTS')) throw e;
      }
      created.push(...missing.map((t) => t.topic));
      // One line, not every name: a run creates two dozen topics under its prefix.
      log(`created ${created.length} topic(s)${commonPrefix(created)}`);
    }
    // wait for leaders on all requested topics (also covers topics created concurrently by others)
    const names = topics.map((t) => t.topic);
    const t0 = Date.now();
    for (;;) {
      let ok = false;
      try {
        const md = await admin.fetchTopicMetadata({ topics: names });
        ok = md.topics.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0));
        for (const t of md.topics) {
          const want = topics.find((x) => x.topic === t.name)?.numPartitions;
          if (ok && want && t.partitions.length < want && !created.includes(t.name)) {
            log(
              `warning: existing topic ${t.name} has ${t.partitions.length} partitions, ${want} requested (left unchanged)`,
            );
          }
        }
      } catch {
        ok = false;
      }
      if (ok) break;
      if (Date.now() - t0 > timeoutMs)
        throw new Error(`topics ${names.join(', ')} have no leaders after ${timeoutMs} ms`);
      await sleep(200);
    }
    return created;
  } finally {
    await admin.disconnect().catch(() => {});
  }
}

/** " under <prefix>" when every name shares a run prefix ("bench…." up to the first dot). @param {string[]} names */
function commonPrefix(names) {
  const first = names[0]?.slice(0, names[0].indexOf('.') + 1);
  return first && names.every((n) => n.startsWith(first)) ? ` under ${first}` : '';
}

/** Status snapshot for the CLI and for debugging. */
export async function kafkaStatus({ rootDir = DEFAULT_ROOT_DIR } = {}) {
  const paths = kafkaPaths(rootDir);
  const pid = readPid(paths.pidFile);
  const listening = await tcpCheck(KAFKA_HOST, KAFKA_PORT);
  return {
    version: readKafkaVersion(rootDir),
    brokers: process.env.KAFKA_BROKERS || DEFAULT_BROKERS,
    fromEnv: Boolean(process.env.KAFKA_BROKERS),
    listening,
    ready: listening ? await probeKafka(process.env.KAFKA_BROKERS || DEFAULT_BROKERS, rootDir) : false,
    pid,
    pidAlive: pid !== null && isKafkaPid(pid),
    jarsResolved: fs.existsSync(paths.stampFile),
    formatted: fs.existsSync(path.join(paths.dataDir, 'meta.properties')),
    runDir: paths.runDir,
    logFile: paths.logFile,
  };
}

// ---------------------------------------------------------------------------------------------
// CLI

async function main(argv) {
  const cmd = argv[0] ?? 'ensure';
  const rootDir = process.env.PAYMENTS_ROOT_DIR || DEFAULT_ROOT_DIR;
  switch (cmd) {
    case 'ensure': {
      const r = await ensureKafka({ rootDir });
      process.stdout.write(`${r.brokers}\n`);
      return 0;
    }
    case 'stop': {
      await stopKafka({ rootDir });
      return 0;
    }
    case 'status': {
      const s = await kafkaStatus({ rootDir });
      process.stdout.write(`${JSON.stringify(s, null, 2)}\n`);
      return s.ready ? 0 : 1;
    }
    case 'reset': {
      await stopKafka({ rootDir });
      const p = kafkaPaths(rootDir);
      fs.rmSync(p.dataDir, { recursive: true, force: true });
      fs.rmSync(path.join(p.runDir, 'data.broken'), { recursive: true, force: true });
      defaultLog(`deleted ${p.dataDir}`);
      return 0;
    }
    case 'resolve': {
      await resolveKafkaJars({ rootDir, force: argv.includes('--force') });
      return 0;
    }
    case 'version': {
      process.stdout.write(`${readKafkaVersion(rootDir)}\n`);
      return 0;
    }
    default:
      process.stderr.write('usage: node tools/infra/kafka.mjs ensure|status|stop|reset|resolve [--force]|version\n');
      return 2;
  }
}

function isMain() {
  if (!process.argv[1]) return false;
  try {
    return fs.realpathSync(process.argv[1]) === fs.realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return import.meta.url === pathToFileURL(process.argv[1]).href;
  }
}

if (isMain()) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`[kafka] ERROR: ${err?.stack || err}\n`);
      process.exit(1);
    },
  );
}
