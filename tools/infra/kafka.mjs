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
//
// The parts, one job each: kafka-paths.mjs (settings, file locations, version), kafka-jars.mjs
// (Java and the Maven-resolved jars), kafka-config.mjs (server.properties, storage format),
// kafka-broker.mjs (start, wait, stop the JVM), kafka-client.mjs (kafkajs probe, admin, warm-up),
// kafka-topics.mjs (ensureTopics). This file picks or starts a broker and is the CLI.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { pidAlive, readPid, sleep, withLock } from './process.mjs';
import {
  CONTROLLER_PORT,
  DEFAULT_BROKERS,
  DEFAULT_ROOT_DIR,
  JVM_HEAP,
  KAFKA_HOST,
  KAFKA_PORT,
  LOCK_TIMEOUT_MS,
  READY_TIMEOUT_MS,
  defaultLog,
  kafkaPaths,
  readKafkaVersion,
  tail,
} from './kafka-paths.mjs';
import { checkJava, resolveKafkaJars } from './kafka-jars.mjs';
import { formatStorage, serverProperties } from './kafka-config.mjs';
import { isKafkaPid, startJvm, stopKafka, waitReady } from './kafka-broker.mjs';
import { probeKafka, tcpCheck, warmUp } from './kafka-client.mjs';

export {
  CONTROLLER_PORT,
  DEFAULT_BROKERS,
  DEFAULT_ROOT_DIR,
  KAFKA_HOST,
  KAFKA_PORT,
  kafkaPaths,
  readKafkaVersion,
} from './kafka-paths.mjs';
export { resolveKafkaJars } from './kafka-jars.mjs';
export { formatStorage, serverProperties } from './kafka-config.mjs';
export { stopKafka } from './kafka-broker.mjs';
export { ensureTopics } from './kafka-topics.mjs';

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
