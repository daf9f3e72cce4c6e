// Kafka tools, shared settings: the broker's ports, timeouts and heap, where its jars, config,
// data, pid and log live, the pinned Kafka version, and a log's tail for error messages.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT_DIR = path.dirname(fileURLToPath(import.meta.url));
export const DEFAULT_ROOT_DIR = path.resolve(SCRIPT_DIR, '..', '..');

export const KAFKA_HOST = '127.0.0.1';
export const KAFKA_PORT = 19092;
export const CONTROLLER_PORT = 19093;
export const DEFAULT_BROKERS = `${KAFKA_HOST}:${KAFKA_PORT}`;

export const READY_TIMEOUT_MS = 60_000;
export const STOP_TIMEOUT_MS = 20_000;
export const LOCK_TIMEOUT_MS = 300_000; // a cold mvn resolve + first start can take a while
export const JVM_HEAP = ['-Xmx512m', '-Xms256m'];

/** @param {string} msg */
export const defaultLog = (msg) => void process.stderr.write(`[kafka] ${msg}\n`);

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

export function tail(file, lines = 60) {
  try {
    const buf = fs.readFileSync(file, 'utf8');
    return buf.split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
