import { createTopicsAndWait } from '@payments/messaging';
import { randomUUID } from 'node:crypto';
import { Admin, Consumer, Kafka, logLevel, Partitioners, Producer } from 'kafkajs';
import { eventually, testBrokers, testKafka, uniqueName } from './infra';

/** kafkajs 2.2.4 against the pinned broker: the calls the services and the tests rely on. */
describe('kafkajs against the pinned Kafka broker', () => {
  const prefix = `${uniqueName('kb')}.`;
  const topic = `${prefix}orders.events`;
  const groupId = `${prefix}group`;
  let admin: Admin;
  let producer: Producer | undefined;
  let consumer: Consumer | undefined;

  beforeAll(async () => {
    admin = testKafka('kb-admin').admin();
    await admin.connect();
  });

  afterAll(async () => {
    await consumer?.disconnect().catch(() => undefined);
    await producer?.disconnect().catch(() => undefined);
    const mine = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (mine.length > 0) await admin.deleteTopics({ topics: mine }).catch(() => undefined);
    await admin.disconnect();
  });

  it('when a topic is created with 3 partitions, then it is listed, described with 3 partitions and has empty offsets', async () => {
    const created = await admin.createTopics({
      waitForLeaders: false,
      topics: [{ topic, numPartitions: 3, replicationFactor: 1 }],
    });
    expect(created).toBe(true);
    // A new topic is briefly unknown to the metadata cache; wait for its leaders as the services do.
    await createTopicsAndWait(admin, [{ topic, numPartitions: 3, replicationFactor: 1 }]);
    expect(await admin.listTopics()).toContain(topic);
    const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
    expect(topics[0].partitions).toHaveLength(3);
    // Leadership reaches the partition a moment after the metadata names it: ask until it answers.
    const offsets = await eventually(() => admin.fetchTopicOffsets(topic), 15000, 'offsets of the new topic');
    expect(offsets.map((o) => [o.partition, o.low, o.high]).sort()).toEqual([
      [0, '0', '0'],
      [1, '0', '0'],
      [2, '0', '0'],
    ]);
  });

  it('when the same topic is created again, then createTopics answers false instead of failing', async () => {
    // A silent client: kafkajs logs the broker's TOPIC_ALREADY_EXISTS answer as an error.
    const quiet = new Kafka({ clientId: 'kb-quiet', brokers: testBrokers(), logLevel: logLevel.NOTHING }).admin();
    await quiet.connect();
    try {
      expect(
        await quiet.createTopics({
          waitForLeaders: false,
          topics: [{ topic, numPartitions: 3, replicationFactor: 1 }],
        }),
      ).toBe(false);
    } finally {
      await quiet.disconnect();
    }
  });

  it('when an idempotent producer sends keyed messages, then each key lands on one partition, in order, and the high watermarks add up', async () => {
    producer = testKafka('kb-producer').producer({
      idempotent: true,
      maxInFlightRequests: 1,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    await producer.connect();
    const results = [];
    for (let i = 0; i < 30; i++) {
      results.push(
        ...(await producer.send({
          topic,
          acks: -1,
          messages: [{ key: `k${i % 3}`, value: JSON.stringify({ key: `k${i % 3}`, seq: i }) }],
        })),
      );
    }
    const partitionOfKey = new Map<string, number>();
    results.forEach((r, i) => {
      expect(r.errorCode).toBe(0);
      const key = `k${i % 3}`;
      if (!partitionOfKey.has(key)) partitionOfKey.set(key, r.partition);
      expect(r.partition).toBe(partitionOfKey.get(key));
    });
    const offsets = await admin.fetchTopicOffsets(topic);
    expect(offsets.reduce((sum, o) => sum + Number(o.high), 0)).toBe(30);
  });

  it('when a consumer group reads the topic, then it sees every message in key order and its committed offsets read back as the high watermarks', async () => {
    consumer = testKafka('kb-consumer').consumer({
      groupId,
      maxWaitTimeInMs: 200,
      sessionTimeout: 10_000,
      heartbeatInterval: 1000,
    });
    const seen: { key: string; seq: number }[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      autoCommitInterval: 100,
      eachMessage: async ({ message }) => void seen.push(JSON.parse(message.value!.toString())),
    });
    await eventually(async () => (seen.length >= 30 ? true : undefined), 15000, '30 messages');
    expect(seen).toHaveLength(30);
    for (const key of ['k0', 'k1', 'k2']) {
      const seqs = seen.filter((m) => m.key === key).map((m) => m.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(seqs).toHaveLength(10);
    }

    // A partition no key hashed to has nothing to commit: the broker answers -1 for it.
    const expected = new Map(
      (await admin.fetchTopicOffsets(topic)).map((o) => [o.partition, o.high === '0' ? '-1' : o.high]),
    );
    expect([...expected.values()].filter((o) => o !== '-1').length).toBeGreaterThan(0);
    // Offsets are committed asynchronously after the batch; wait until the broker has them.
    const committed = await eventually(
      async () => {
        const [entry] = await admin.fetchOffsets({ groupId, topics: [topic] });
        return entry.partitions.every((p) => p.offset === expected.get(p.partition)) ? entry.partitions : undefined;
      },
      15000,
      'committed offsets',
    );
    expect(committed).toHaveLength(3);

    const described = await admin.describeGroups([groupId]);
    expect(described.groups).toHaveLength(1);
    expect(described.groups[0]).toMatchObject({ groupId, state: 'Stable', protocolType: 'consumer' });
    expect(described.groups[0].members).toHaveLength(1);

    await consumer.disconnect();
    consumer = undefined;
    const [after] = await admin.fetchOffsets({ groupId, topics: [topic] });
    expect(after.partitions.map((p) => [p.partition, p.offset]).sort()).toEqual([...expected.entries()].sort());
    const empty = await admin.describeGroups([groupId]);
    expect(empty.groups[0].state).toBe('Empty');
  });

  it('when a producer sends to a topic that does not exist with auto-creation off, then it fails instead of creating it', async () => {
    // A silent client: kafkajs logs the expected UNKNOWN_TOPIC_OR_PARTITION as an error.
    const strict = new Kafka({ clientId: 'kb-strict', brokers: testBrokers(), logLevel: logLevel.NOTHING }).producer({
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
      retry: { retries: 1, initialRetryTime: 100 },
    });
    await strict.connect();
    try {
      await expect(
        strict.send({ topic: `${prefix}missing.${randomUUID()}`, messages: [{ value: 'x' }] }),
      ).rejects.toThrow();
    } finally {
      await strict.disconnect();
    }
  });

  it('when the topic is deleted, then it is no longer listed', async () => {
    await admin.deleteTopics({ topics: [topic] });
    await eventually(
      async () => (!(await admin.listTopics()).includes(topic) ? true : undefined),
      10000,
      'topic deletion',
    );
    expect(await admin.listTopics()).not.toContain(topic);
  });
});
