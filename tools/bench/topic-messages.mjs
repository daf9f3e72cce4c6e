// What the run put on the broker: its messages per order, counted from the topics' offsets.
export async function kafkaAdmin(brokers) {
  const { createRequire } = await import('node:module');
  const { Kafka, logLevel } = createRequire(import.meta.url)('kafkajs');
  const admin = new Kafka({ brokers: brokers.split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  return admin;
}

/** Every message the run put on its topics (replies included), per order created. */
export async function messagesPerOrderOf(brokers, prefix, orders) {
  const admin = await kafkaAdmin(brokers);
  try {
    let total = 0;
    for (const topic of (await admin.listTopics()).filter((t) => t.startsWith(prefix) && !t.endsWith('.ceiling'))) {
      for (const p of await admin.fetchTopicOffsets(topic)) total += Number(p.high) - Number(p.low);
    }
    return Math.round((10 * total) / Math.max(orders, 1)) / 10;
  } finally {
    await admin.disconnect();
  }
}
