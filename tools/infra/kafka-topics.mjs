// Kafka tools, topic administration: create the missing topics and wait for their leaders
// (ensureTopics, re-exported by kafka.mjs).

import { sleep } from './process.mjs';
import { DEFAULT_ROOT_DIR, defaultLog } from './kafka-paths.mjs';
import { newAdmin } from './kafka-client.mjs';

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
