// @ts-check
// The scratch resources of one bench or fault run — a database, topics and consumer groups under a
// prefix of its own — and their removal: at the end of the run, and, for runs that crashed before
// they could, at the start of a later one once they are an hour old.
//
// A run's names carry its start time, so that age is read from the name alone:
//   topics and groups  <kind><base-36 ms>.<name>          e.g. benchmwsm7i0z.orders.commands
//   databases          payments_<kind>_<base-36 ms>_<pid>  e.g. payments_bench_mwsm7i0z_4242
// Only these two kinds exist; nothing without their prefix is ever looked at.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sleep } from './process.mjs';

/** @typedef {'bench' | 'faults'} Kind */
export const KINDS = /** @type {const} */ (['bench', 'faults']);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(path.join(ROOT, 'package.json'));
const HOUR_MS = 3_600_000;

/**
 * Names for one run (or one scenario of a run) started now.
 * @param {Kind} kind
 * @param {number} [now]
 */
export function scratchNames(kind, now = Date.now()) {
  const stamp = now.toString(36);
  return { prefix: `${kind}${stamp}.`, database: `payments_${kind}_${stamp}_${process.pid}` };
}

/**
 * When the run that made `name` (a topic, group or database) started; null for a name of neither
 * kind. Fault-suite databases of the previous scheme (payments_faults_<pid>_<base-36 ms>) carry a
 * time too; bench databases of that scheme (payments_bench_<pid>) do not: null, left alone.
 * @param {string} name
 * @returns {number | null}
 */
export function startedAt(name) {
  const stamps = [
    /^(?:bench|faults)([0-9a-z]{6,10})\./.exec(name)?.[1],
    /^payments_(?:bench|faults)_([0-9a-z]{6,10})_\d+$/.exec(name)?.[1],
    /^payments_faults_\d+_([0-9a-z]{6,10})$/.exec(name)?.[1],
  ];
  for (const stamp of stamps) {
    const ms = stamp === undefined ? NaN : Number.parseInt(stamp, 36);
    // A sane time (2020 to 2100): anything else is a name that only looks like ours.
    if (ms > 1_577_836_800_000 && ms < 4_102_444_800_000) return ms;
  }
  return null;
}

/** @param {string} brokers */
async function kafkaAdmin(brokers) {
  const { Kafka, logLevel } = require('kafkajs');
  const admin = new Kafka({
    clientId: 'payments-scratch',
    brokers: brokers.split(','),
    logLevel: logLevel.NOTHING,
    connectionTimeout: 3000,
    retry: { retries: 3 },
  }).admin();
  await admin.connect();
  return admin;
}

/**
 * @template T
 * @param {string} url
 * @param {(client: import('pg').Client) => Promise<T>} fn
 */
async function withPg(url, fn) {
  const { Client } = require('pg');
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  client.on('error', () => {});
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/** @param {string} url the server's admin URL, its database replaced by "postgres" */
function adminOf(url) {
  const u = new URL(url);
  u.pathname = '/postgres';
  return u.toString();
}

/**
 * Deletes the topics and consumer groups whose names `select` picks; returns their names. Groups
 * whose members have not left yet (a killed consumer's session runs out after 30 s) are retried
 * for up to `groupWaitMs`.
 * @param {string} brokers
 * @param {(name: string) => boolean} select
 * @param {{ groupWaitMs?: number }} [opts]
 */
export async function deleteKafkaScratch(brokers, select, { groupWaitMs = 40_000 } = {}) {
  const admin = await kafkaAdmin(brokers);
  try {
    const topics = (await admin.listTopics()).filter(select);
    // A loaded broker may time a deletion out: try again, a deleted topic is simply not listed.
    for (let attempt = 1, left = topics; left.length; attempt++) {
      try {
        await admin.deleteTopics({ topics: left, timeout: 30_000 });
        break;
      } catch (err) {
        if (attempt === 3) throw err;
        await sleep(2000);
        const still = new Set(await admin.listTopics());
        left = left.filter((t) => still.has(t));
      }
    }
    // The broker answers a deletion once its controller has recorded it; its metadata still lists
    // the topics for a moment after (CI saw a whole run's topics listed after "stopped and removed").
    // "Removed" means no longer listed.
    for (const deadline = Date.now() + 30_000; topics.length;) {
      const still = new Set(await admin.listTopics());
      if (!topics.some((t) => still.has(t))) break;
      if (Date.now() > deadline)
        throw new Error(
          `topics still listed 30 s after their deletion: ${summarize(topics.filter((t) => still.has(t)))}`,
        );
      await sleep(250);
    }
    const listGroups = async () => (await admin.listGroups()).groups.map((g) => g.groupId).filter(select);
    let groups = await listGroups();
    /** @type {string[]} */
    const deleted = [];
    /** @type {Map<string, string>} why a group could not be deleted (last attempt) */
    const why = new Map();
    const deadline = Date.now() + groupWaitMs;
    while (groups.length) {
      try {
        await admin.deleteGroups(groups);
      } catch (err) {
        // kafkajs stops at the first failure; its error lists the groups that failed, and why.
        const e = /** @type {any} */ (err);
        for (const g of e.groups ?? []) why.set(g.groupId, g.error?.type ?? `error ${g.errorCode}`);
        if (!e.groups) for (const g of groups) why.set(g, e.type ?? e.message);
      }
      // The broker's list is the truth (a group deleted concurrently, or gone meanwhile, is gone).
      const tried = groups;
      const still = new Set(await listGroups());
      groups = tried.filter((g) => still.has(g));
      deleted.push(...tried.filter((g) => !still.has(g)));
      // NON_EMPTY_GROUP: a killed member's session (10 s) has not run out yet.
      if (groups.length === 0 || Date.now() > deadline) break;
      await sleep(1000);
    }
    return { topics, groups: deleted, left: groups.map((g) => `${g} (${why.get(g) ?? 'unknown'})`) };
  } finally {
    await admin.disconnect().catch(() => {});
  }
}

/** Drops a database, disconnecting whoever is still on it. @param {string} url @param {string} name */
export async function dropScratchDatabase(url, name) {
  await withPg(adminOf(url), (c) => c.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`));
}

/**
 * Removes what one run created: its database, and its topics and groups (those under `prefix`).
 * @param {{ brokers?: string, databaseUrl?: string, prefix: string, database?: string }} scratch
 */
export async function removeScratch({ brokers, databaseUrl, prefix, database }) {
  // Each part on its own: a broker that fails to answer must not leave the database behind.
  const [db, kafka] = await Promise.allSettled([
    databaseUrl && database ? dropScratchDatabase(databaseUrl, database) : undefined,
    brokers ? deleteKafkaScratch(brokers, (n) => n.startsWith(prefix)) : undefined,
  ]);
  const failed = [db, kafka].flatMap((r) => (r.status === 'rejected' ? [String(r.reason?.message ?? r.reason)] : []));
  if (failed.length) throw new Error(failed.join('; '));
  return kafka.status === 'fulfilled' ? kafka.value : undefined;
}

/**
 * Removes the topics, groups and databases of earlier bench and fault runs that started more than
 * `olderThanMs` ago (crashed runs: a run that ends removes its own). Returns one line saying what
 * went, or null when nothing did.
 * @param {{ brokers?: string, databaseUrl?: string, olderThanMs?: number, now?: number }} where
 */
export async function sweepLeftovers({ brokers, databaseUrl, olderThanMs = HOUR_MS, now = Date.now() }) {
  const old = (/** @type {string} */ name) => {
    const at = startedAt(name);
    return at !== null && now - at > olderThanMs;
  };
  const parts = [];
  if (brokers) {
    const k = await deleteKafkaScratch(brokers, old, { groupWaitMs: 0 });
    if (k.topics.length) parts.push(`${k.topics.length} topic(s) (${summarize(k.topics)})`);
    if (k.groups.length) parts.push(`${k.groups.length} consumer group(s)`);
  }
  if (databaseUrl) {
    const names = await withPg(adminOf(databaseUrl), async (c) =>
      (await c.query(`SELECT datname FROM pg_database WHERE datname ~ '^payments_(bench|faults)_'`)).rows
        .map((r) => String(r.datname))
        .filter(old),
    );
    for (const name of names) await dropScratchDatabase(databaseUrl, name);
    if (names.length) parts.push(`${names.length} database(s) (${names.join(', ')})`);
  }
  return parts.length ? `removed leftovers of earlier runs older than an hour: ${parts.join('; ')}` : null;
}

/** The run prefixes a list of names belongs to. @param {string[]} names */
function summarize(names) {
  const prefixes = [...new Set(names.map((n) => n.slice(0, n.indexOf('.') + 1)))];
  return `prefix${prefixes.length > 1 ? 'es' : ''} ${prefixes.join(', ')}`;
}
