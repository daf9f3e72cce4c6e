// Kafka tools, the broker process: start the JVM detached, wait until it serves clients, and
// stop it from its pid file (stopKafka, re-exported by kafka.mjs).

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pidAlive, pidRuns, readPid, sleep } from './process.mjs';
import {
  DEFAULT_ROOT_DIR,
  JVM_HEAP,
  KAFKA_HOST,
  KAFKA_PORT,
  STOP_TIMEOUT_MS,
  defaultLog,
  kafkaPaths,
} from './kafka-paths.mjs';
import { javaBin } from './kafka-jars.mjs';
import { probeKafka, tcpCheck } from './kafka-client.mjs';

/** true if pid is alive and (where /proc exists) really is a kafka.Kafka JVM; guards against pid reuse. */
export function isKafkaPid(pid) {
  return pidRuns(pid, 'kafka.Kafka');
}

/** @typedef {{ code: number | null, signal: string | null, error?: Error }} Exited */

/**
 * @param {ReturnType<typeof kafkaPaths>} paths
 * @param {string} version
 * @returns {{ pid: number, exited: () => Exited | null }}
 */
export function startJvm(paths, version, heap = JVM_HEAP) {
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
export async function waitReady({ brokers, pid, exited, timeoutMs, rootDir, port = KAFKA_PORT }) {
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
