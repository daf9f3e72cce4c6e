// Shared set-up of the KafkaTransport component specs (kafka-transport*.component.spec.ts): test
// handlers (per message and batch) that record what they got, and a NestJS microservice on the
// transport against a test topic prefix, with a producer, a reader of the DLQ and replies, and the
// batch handler's inbox in a test database.
import { randomUUID } from 'node:crypto';
import { Controller, INestMicroservice, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { Admin, Partitioners, Producer } from 'kafkajs';
import { DataSource } from 'typeorm';
import { ContractViolation, dlqTopic, envelope, Envelope, okReply, ReplyTopics, Topics } from '@payments/contracts';
import type { KafkaConfig } from '@payments/platform';
import {
  createTestDatabase,
  createTestTopics,
  ReadMessage,
  testBrokers,
  testKafka,
  TopicReader,
  uniqueName,
} from '@payments/testing';
import { createTopicsAndWait } from './kafka';
import { Inbox } from './inbox';
import {
  BATCH_HANDLER,
  BatchMessageFailure,
  KafkaBatchContext,
  KafkaMessageContext,
  KafkaTransport,
} from './kafka-transport';
import { messagingTablesDdl } from './outbox';
import { RethrowRpcErrors } from './rethrow-rpc.filter';

interface Call {
  type: string;
  eventId: string;
  at: number;
  topic: string;
}

export const slowRuns = new Map<string, { running: number; maxRunning: number; order: Map<string, number[]> }>();

/** Every handler call, in the order the transport made them. */
export const calls: Call[] = [];
const record = (env: Envelope, ctx: KafkaMessageContext) =>
  calls.push({ type: env.type, eventId: env.eventId, at: Date.now(), topic: ctx.topic });

export interface BatchPayload {
  key: string;
  n: number;
  mode?: 'contract' | 'error' | 'outage';
  outageCalls?: number;
}

/** Every call of the batch handler: the event ids it got, in the order it got them. */
export const batchCalls: { eventIds: string[]; topic: string; partition: number }[] = [];
/** The batch handler's inbox and its effects table (what a service's state change would be). */
export const batchStore: { ds?: DataSource; inbox?: Inbox; schema: string } = { schema: uniqueName('kt_') };
/** Every handling that committed, batch or not, in the order it committed: per-key order is read here. */
export const applied: { eventId: string; key: string; n: number }[] = [];

@Controller()
class TestHandlers {
  /**
   * A batch handler as services write them: one inbox transaction for the batch; a message it
   * finds poisonous is named, one that fails otherwise is not; the database can be "down".
   */
  @EventPattern('test.batch', BATCH_HANDLER)
  async batch(@Payload() envs: Envelope<BatchPayload>[], @Ctx() ctx: KafkaBatchContext) {
    batchCalls.push({ eventIds: envs.map((e) => e.eventId), topic: ctx.topic, partition: ctx.partition });
    for (const env of envs) {
      if (env.payload.mode === 'outage') {
        const tries = batchCalls.filter((c) => c.eventIds.includes(env.eventId)).length;
        if (tries <= env.payload.outageCalls!)
          throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      }
    }
    const done = await batchStore.inbox!.processBatch(envs, async (m, fresh) => {
      const seen = new Set<string>();
      const todo = envs.filter((e) => fresh.has(e.eventId) && !seen.has(e.eventId) && seen.add(e.eventId));
      for (const env of todo) {
        if (env.payload.mode === 'contract')
          throw new BatchMessageFailure(env.eventId, new ContractViolation(`test.batch: ${env.payload.key} is poison`));
        if (env.payload.mode === 'error') throw new Error(`test.batch: ${env.payload.key} broke`);
      }
      await m.query(
        `INSERT INTO "${batchStore.schema}".effects (event_id, key, n) SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[])`,
        [todo.map((e) => e.eventId), todo.map((e) => e.payload.key), todo.map((e) => e.payload.n)],
      );
      return todo;
    });
    for (const env of done.result) applied.push({ eventId: env.eventId, key: env.payload.key, n: env.payload.n });
  }

  @MessagePattern('test.echo')
  echo(@Payload() env: Envelope<{ value: string }>, @Ctx() ctx: KafkaMessageContext) {
    record(env, ctx);
    return okReply({ echo: env.payload.value, topic: ctx.topic });
  }

  @EventPattern('test.fail')
  async fail(
    @Payload() env: Envelope<{ mode: 'error' | 'contract' | 'outage'; marker: string; outageCalls?: number }>,
    @Ctx() ctx: KafkaMessageContext,
  ) {
    record(env, ctx);
    await Promise.resolve();
    if (env.payload.mode === 'contract')
      throw new ContractViolation(`test.fail: payload.marker ${env.payload.marker} is not allowed`);
    if (env.payload.mode === 'outage') {
      // The database is down for the first outageCalls calls, then back.
      if (calls.filter((c) => c.eventId === env.eventId).length <= env.payload.outageCalls!) {
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      }
      return;
    }
    throw new Error(`downstream unavailable (${env.payload.marker})`);
  }

  /** Takes a while, and notes how many run at once and in which order each key's messages ran. */
  @EventPattern('test.slow')
  async slow(@Payload() env: Envelope<{ key: string; n: number; run: string }>, @Ctx() ctx: KafkaMessageContext) {
    const run = slowRuns.get(env.payload.run) ?? { running: 0, maxRunning: 0, order: new Map<string, number[]>() };
    slowRuns.set(env.payload.run, run);
    run.running += 1;
    run.maxRunning = Math.max(run.maxRunning, run.running);
    await new Promise((r) => setTimeout(r, 40));
    run.order.set(env.payload.key, [...(run.order.get(env.payload.key) ?? []), env.payload.n]);
    run.running -= 1;
    record(env, ctx);
  }

  @EventPattern('test.ok')
  ok(@Payload() env: Envelope<Partial<BatchPayload>>, @Ctx() ctx: KafkaMessageContext) {
    record(env, ctx);
    if (env.payload.key !== undefined) applied.push({ eventId: env.eventId, key: env.payload.key, n: env.payload.n! });
  }
}

@Module({ controllers: [TestHandlers] })
class TestModule {}

/**
 * Registers beforeAll/afterAll in the calling describe: starts the microservice on its own topic
 * prefix and returns the topic names, the clients (once started) and the senders.
 */
export function kafkaTransportHarness() {
  const prefix = `${uniqueName('kt')}.`;
  const kafka: KafkaConfig = {
    brokers: testBrokers(),
    clientId: 'kafka-transport-spec',
    topicPrefix: prefix,
    replicationFactor: 1,
  };
  const topic = prefix + Topics.ledgerCommands;
  const dlq = prefix + dlqTopic(Topics.ledgerCommands);
  const replies = `${prefix}${ReplyTopics.gateway}`;
  const maxAttempts = 3;
  const retryBackoffMs = 50;
  let topics: { deleteAll(): Promise<void> } | undefined;
  let admin: Admin | undefined;
  let producer: Producer | undefined;
  let reader: TopicReader | undefined;
  let app: INestMicroservice | undefined;
  let db: { url: string; drop(): Promise<void> } | undefined;

  beforeAll(async () => {
    db = await createTestDatabase();
    const ds = (batchStore.ds = new DataSource({ type: 'postgres', url: db.url, entities: [], logging: false }));
    await ds.initialize();
    await ds.query(`CREATE SCHEMA "${batchStore.schema}"`);
    for (const ddl of messagingTablesDdl(batchStore.schema)) await ds.query(ddl);
    await ds.query(
      `CREATE TABLE "${batchStore.schema}".effects (id bigserial PRIMARY KEY, event_id uuid NOT NULL, key text NOT NULL, n int NOT NULL)`,
    );
    batchStore.inbox = new Inbox(ds, batchStore.schema, 'batch-spec');
    topics = await createTestTopics(prefix);
    admin = testKafka('kt-admin').admin();
    await admin.connect();
    await createTopicsAndWait(admin, [{ topic: replies, numPartitions: 1, replicationFactor: 1 }]);
    producer = testKafka('kt-producer').producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    reader = await TopicReader.start([dlq, replies], { contract: false });

    const transport = new KafkaTransport({
      kafka,
      groupId: 'transport-spec',
      topics: [Topics.ledgerCommands],
      maxAttempts,
      retryBackoffMs,
    });
    app = await NestFactory.createMicroservice(TestModule, { strategy: transport, logger: false });
    app.useGlobalFilters(new RethrowRpcErrors());
    await app.listen();
    await transport.whenJoined();
  });

  afterAll(async () => {
    await app?.close();
    await reader?.stop();
    await producer?.disconnect();
    await admin?.disconnect();
    await topics?.deleteAll();
    if (batchStore.ds?.isInitialized) await batchStore.ds.destroy();
    await db?.drop();
  });

  async function send(value: string | null, key: string, headers: Record<string, string> = {}) {
    const [meta] = await producer!.send({ topic, acks: -1, messages: [{ key, value, headers }] });
    return meta;
  }

  async function sendEnvelope<P>(
    type: string,
    payload: P,
    key: string = randomUUID(),
    headers: Record<string, string> = {},
  ) {
    const env = envelope({ type, payload, occurredAt: new Date(), correlationId: `corr-${randomUUID()}` });
    const meta = await send(JSON.stringify(env), key, headers);
    return { env, key, partition: meta.partition, offset: meta.baseOffset! };
  }

  const deadLettered = (match: (m: ReadMessage) => boolean) =>
    reader!.waitFor(1, (m) => m.topic === dlq && match(m)).then((found) => found[0]);
  return {
    kafka,
    topic,
    dlq,
    replies,
    maxAttempts,
    retryBackoffMs,
    /** The admin, producer and reader, once beforeAll has started them. */
    clients: () => ({ admin, producer, reader }),
    send,
    sendEnvelope,
    deadLettered,
  };
}
