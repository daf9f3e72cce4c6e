// What the fault suite asks of the services it runs: is one ready (its readiness endpoint), and the
// Kafka side of request-reply (the reply topics of a requester).
import { createRequire } from 'node:module';
import path from 'node:path';
import { lastLines, ROOT } from '../stack/common.mjs';

const require = createRequire(path.join(ROOT, 'package.json'));
const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

/**
 * One readiness answer of the service at `base` (http://host:port). `/health/ready` where the
 * service has it; where it answers 404 (a service of the code before readiness endpoints) its
 * `/health`; where that is 404 too (the sandbox has no health route) any answer at all means the
 * process serves HTTP. ok: 200 (or that last case); never throws.
 * @param {string} base
 * @param {number} [timeoutMs]
 * @returns {Promise<{ ok: boolean, path: string, status: number | string }>}
 */
export async function readiness(base, timeoutMs = 3000) {
  /** The components a 503 names as down, with their detail (Terminus's `error` member). */
  let why = '';
  /** @param {string} p */
  const get = async (p) => {
    try {
      const r = await fetch(base + p, { signal: AbortSignal.timeout(timeoutMs) });
      const text = await r.text().catch(() => '');
      if (r.status === 503) why = downComponents(text);
      return r.status;
    } catch (e) {
      const err = /** @type {Error & { cause?: { code?: string } }} */ (e);
      return err.name === 'TimeoutError' ? 'timeout' : (err.cause?.code ?? 'no answer');
    }
  };
  const ready = await get('/health/ready');
  if (ready !== 404) return { ok: ready === 200, path: '/health/ready', status: why ? `${ready} (${why})` : ready };
  const health = await get('/health');
  if (health !== 404) return { ok: health === 200, path: '/health', status: health };
  return { ok: true, path: '(no health route)', status: 404 };
}

/**
 * What a 503 from /health/ready says is down (its problem `detail`: `component: why; …`).
 * @param {string} text
 */
function downComponents(text) {
  try {
    const body = JSON.parse(text);
    return typeof body.detail === 'string' ? body.detail : '';
  } catch {
    return '';
  }
}

/**
 * Waits until the service at `base` is ready (readiness). Gives up when `child` exits first (its
 * log's end in the error) or after timeoutMs.
 * @param {string} base
 * @param {{ child?: import('node:child_process').ChildProcess & { logFile?: string }, timeoutMs?: number, label?: string }} [opts]
 */
export async function waitReady(base, { child, timeoutMs = 90_000, label = base } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await readiness(base);
    if (r.ok) return r;
    if (child && (child.exitCode !== null || child.signalCode !== null)) {
      // Its last line says why (Nest's start-up error); the rest is in the log.
      const why = child.logFile ? `: ${lastLines(child.logFile, 1)} (${path.relative(ROOT, child.logFile)})` : '';
      throw new Error(`${label} exited (${child.signalCode ?? `code ${child.exitCode}`}) before it was ready${why}`);
    }
    if (Date.now() > deadline)
      throw new Error(`${label} not ready within ${timeoutMs / 1000} s (${r.path} answered ${r.status})`);
    await sleep(250);
  }
}

/** @param {string} brokers */
async function kafkaAdmin(brokers) {
  const { Kafka, logLevel } = require('kafkajs');
  const admin = new Kafka({
    clientId: 'payments-faults',
    brokers: brokers.split(','),
    logLevel: logLevel.NOTHING,
    connectionTimeout: 3000,
    retry: { retries: 3 },
  }).admin();
  await admin.connect();
  return admin;
}

/**
 * The reply topics of a gateway instance under `prefix`: `gateway.replies.<instance id>` (one per
 * instance, the code of today) and `gateway.replies` (one topic the instances of a requester share,
 * the design being introduced), whichever exist.
 * @param {string} brokers
 * @param {string} prefix
 * @param {string} instanceId
 */
export async function gatewayReplyTopics(brokers, prefix, instanceId) {
  const admin = await kafkaAdmin(brokers);
  try {
    const wanted = new Set([`${prefix}gateway.replies.${instanceId}`, `${prefix}gateway.replies`]);
    return (await admin.listTopics()).filter((t) => wanted.has(t));
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/**
 * Deletes topics and waits until the broker no longer lists them.
 * @param {string} brokers
 * @param {string[]} topics
 */
export async function deleteTopics(brokers, topics) {
  if (!topics.length) return;
  const admin = await kafkaAdmin(brokers);
  try {
    await admin.deleteTopics({ topics, timeout: 30_000 });
    const deadline = Date.now() + 30_000;
    while ((await admin.listTopics()).some((t) => topics.includes(t))) {
      if (Date.now() > deadline) throw new Error(`${topics.join(', ')} still listed 30 s after their deletion`);
      await sleep(200);
    }
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
