// Kafka tools, talking to a broker with kafkajs: a TCP check, the admin client, the readiness
// probe, and the warm-up that creates the group/transaction coordinators' topics.

import net from 'node:net';
import path from 'node:path';
import { createRequire } from 'node:module';
import { DEFAULT_ROOT_DIR } from './kafka-paths.mjs';

export function tcpCheck(host, port, timeoutMs = 1000) {
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

export function newAdmin(brokers, rootDir = DEFAULT_ROOT_DIR, { quiet = true } = {}) {
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
export async function probeKafka(brokers, rootDir) {
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

/**
 * Create the internal topics now (__consumer_offsets via FindCoordinator(GROUP), __transaction_state
 * via a transactional producer's FindCoordinator(TRANSACTION) + InitProducerId) so the first consumer group
 * or producer of a test run does not pay for it and kafkajs does not log
 * "coordinator is loading / not available" errors. Best effort.
 */
export async function warmUp(brokers, rootDir, log) {
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
