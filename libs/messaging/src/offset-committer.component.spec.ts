import { randomUUID } from 'node:crypto';
import { Controller, INestMicroservice, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventPattern, Payload } from '@nestjs/microservices';
import { Admin, Consumer, Partitioners, Producer } from 'kafkajs';
import { envelope, Envelope, Topics } from '@payments/contracts';
import type { KafkaConfig } from '@payments/platform';
import { createTestTopics, eventually, testBrokers, testKafka, uniqueName } from '@payments/testing';
import { KafkaTransport } from './kafka-transport';

/** Every event id the handler saw, in order (a message handled twice shows twice). */
const handled: string[] = [];

@Controller()
class CountingHandlers {
  @EventPattern('test.count')
  count(@Payload() env: Envelope) {
    handled.push(env.eventId);
  }
}

@Module({ controllers: [CountingHandlers] })
class CountingModule {}

describe('KafkaTransport offset commits against Kafka (KAFKA_COMMIT_INTERVAL_MS)', () => {
  const prefix = `${uniqueName('oc')}.`;
  const topic = prefix + Topics.ledgerCommands;
  const kafka = (commitIntervalMs: number): KafkaConfig => ({
    brokers: testBrokers(),
    clientId: 'offset-committer-spec',
    topicPrefix: prefix,
    replicationFactor: 1,
    commitIntervalMs,
  });
  let topics: { deleteAll(): Promise<void> } | undefined;
  let admin: Admin | undefined;
  let producer: Producer | undefined;
  const apps: INestMicroservice[] = [];

  beforeAll(async () => {
    topics = await createTestTopics(prefix);
    admin = testKafka('oc-admin').admin();
    await admin.connect();
    producer = testKafka('oc-producer').producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
  });

  afterAll(async () => {
    for (const app of apps) await app.close();
    await producer?.disconnect();
    await admin?.disconnect();
    await topics?.deleteAll();
  });

  async function start(groupId: string, commitIntervalMs: number, contractTopic: string = Topics.ledgerCommands) {
    const transport = new KafkaTransport({ kafka: kafka(commitIntervalMs), groupId, topics: [contractTopic] });
    const app = await NestFactory.createMicroservice(CountingModule, { strategy: transport, logger: false });
    apps.push(app);
    await app.listen();
    await transport.whenJoined();
    const { consumer } = transport.unwrap<{ consumer: Consumer }>();
    const commits: number[] = [];
    consumer.on(consumer.events.COMMIT_OFFSETS, () => commits.push(Date.now()));
    return { app, commits };
  }

  /** Sends one message with `key` and waits until the handler saw it: each is a batch of its own. */
  async function sendHandled(key: string, to = topic): Promise<{ partition: number; offset: string }> {
    const env = envelope({ type: 'test.count', payload: {}, occurredAt: new Date() });
    const [meta] = await producer!.send({ topic: to, acks: -1, messages: [{ key, value: JSON.stringify(env) }] });
    await eventually(async () => (handled.includes(env.eventId) ? true : undefined), 10000, `message ${env.eventId}`);
    return { partition: meta.partition, offset: meta.baseOffset! };
  }

  const committed = async (groupId: string, partition: number, of = topic): Promise<bigint> => {
    const [entry] = await admin!.fetchOffsets({ groupId: prefix + groupId, topics: [of] });
    return BigInt(entry.partitions.find((p) => p.partition === partition)!.offset);
  };

  it('when messages come one batch at a time, then offsets are committed once per interval, and the last ones once the traffic stops', async () => {
    const groupId = 'oc-interval';
    const intervalMs = 400;
    const { app, commits } = await start(groupId, intervalMs);
    const key = randomUUID();
    const began = Date.now();
    let last = { partition: 0, offset: '0' };
    for (let i = 0; i < 20; i++) last = await sendHandled(key);
    const elapsed = Date.now() - began;

    // kafkajs's autoCommit would have committed after each of the 20 batches.
    expect(commits.length).toBeLessThanOrEqual(Math.ceil(elapsed / intervalMs) + 1);
    expect(commits.length).toBeLessThan(20);
    // No further message comes: the interval commits what was finished.
    await eventually(
      async () => ((await committed(groupId, last.partition)) === BigInt(last.offset) + 1n ? true : undefined),
      5000,
      'the last offset committed without a further batch',
    );
    await app.close();
    apps.splice(apps.indexOf(app), 1);
  });

  it('when the consumer stops before its interval has passed, then what it finished is committed and not handled again after a restart', async () => {
    // A topic of its own: nothing of the test before is read by this group.
    const own = prefix + Topics.ordersEvents;
    const groupId = 'oc-stop';
    const first = await start(groupId, 60_000, Topics.ordersEvents);
    const key = randomUUID();
    const sent: { partition: number; offset: string }[] = [];
    for (let i = 0; i < 5; i++) sent.push(await sendHandled(key, own));
    const { partition } = sent[0];
    const last = BigInt(sent[4].offset);
    expect(first.commits).toHaveLength(0);

    await first.app.close();
    apps.splice(apps.indexOf(first.app), 1);
    // Read after the close: the commit is part of stopping, not something that follows it.
    expect(await committed(groupId, partition, own)).toBe(last + 1n);

    const before = handled.length;
    await start(groupId, 60_000, Topics.ordersEvents);
    const next = await sendHandled(key, own);
    expect(BigInt(next.offset)).toBe(last + 1n);
    // The restarted member began after the five: it handled the new message only.
    expect(handled.slice(before)).toHaveLength(1);
  });
});
