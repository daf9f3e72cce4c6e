// What a run leaves to do: merchant callbacks waiting to be delivered (merchant-callbacks' own
// table), and how far the services' consumer groups are behind their topics.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * Deliveries still pending in merchant-callbacks' schema. `{ error }` when the table cannot be
 * read (another shape of the queue, or no merchant-callbacks in this checkout).
 */
export async function pendingDeliveries(databaseUrl, schema = 'merchant_callbacks') {
  const { Client } = require('pg');
  const client = new Client({ connectionString: databaseUrl });
  try {
    await client.connect();
    const { rows } = await client.query(
      `SELECT count(*)::int AS n FROM "${schema.replaceAll('"', '""')}".deliveries WHERE status = 'pending'`,
    );
    return { pending: rows[0].n };
  } catch (err) {
    return { error: /** @type {Error} */ (err).message };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Consumer lag of every group whose name starts with `prefix`: the messages of their topics not yet
 * committed, in total and per group.
 * @param {import('kafkajs').Admin} admin
 */
export async function consumerLag(admin, prefix) {
  const { groups } = await admin.listGroups();
  /** @type {Record<string, number>} */
  const byGroup = {};
  const highs = new Map();
  const high = async (topic) => {
    if (!highs.has(topic)) {
      const offsets = await admin.fetchTopicOffsets(topic);
      highs.set(topic, new Map(offsets.map((p) => [p.partition, Number(p.high)])));
    }
    return highs.get(topic);
  };
  for (const { groupId } of groups.filter((g) => g.groupId.startsWith(prefix))) {
    let lag = 0;
    for (const { topic, partitions } of await admin.fetchOffsets({ groupId })) {
      const h = await high(topic).catch(() => new Map());
      for (const p of partitions) {
        const end = h.get(p.partition) ?? 0;
        const committed = Number(p.offset);
        // -1: nothing committed yet; everything up to the end counts as behind.
        lag += Math.max(0, end - (committed < 0 ? 0 : committed));
      }
    }
    byGroup[groupId.slice(prefix.length)] = lag;
  }
  return { total: Object.values(byGroup).reduce((a, b) => a + b, 0), byGroup };
}
