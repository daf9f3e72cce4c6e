import { randomUUID } from 'node:crypto';
import { Controller, INestMicroservice, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { Admin, Partitioners, Producer } from 'kafkajs';
import { DataSource } from 'typeorm';
import {
  ContractViolation,
  dlqTopic,
  envelope,
  Envelope,
  okReply,
  ReplyHeaders,
  ReplyTopics,
  Topics,
} from '@payments/contracts';
import type { KafkaConfig } from '@payments/platform';
// Test infrastructure only; the boundary rule has no override for spec files yet.
import {
  createTestDatabase,
  createTestTopics,
  eventually,
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

const slowRuns = new Map<string, { running: number; maxRunning: number; order: Map<string, number[]> }>();

/** Every handler call, in the order the transport made them. */
const calls: Call[] = [];
const record = (env: Envelope, ctx: KafkaMessageContext) =>
  calls.push({ type: env.type, eventId: env.eventId, at: Date.now(), topic: ctx.topic });

interface BatchPayload {
  key: string;
  n: number;
  mode?: 'contract' | 'error' | 'outage';
  outageCalls?: number;
}

/** Every call of the batch handler: the event ids it got, in the order it got them. */
const batchCalls: { eventIds: string[]; topic: string; partition: number }[] = [];
/** The batch handler's inbox and its effects table (what a service's state change would be). */
const batchStore: { ds?: DataSource; inbox?: Inbox; schema: string } = { schema: uniqueName('kt_') };
/** Every handling that committed, batch or not, in the order it committed: per-key order is read here. */
const applied: { eventId: string; key: string; n: number }[] = [];

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

describe('KafkaTransport in a NestJS microservice against Kafka', () => {
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

  it('when a request carries a reply-topic header, then the reply envelope goes there with the request eventId as correlation-id', async () => {
    const value = randomUUID();
    const { env } = await sendEnvelope('test.echo', { value }, undefined, { [ReplyHeaders.replyTopic]: replies });

    const [reply] = await reader!.waitFor(
      1,
      (m) => m.topic === replies && m.headers[ReplyHeaders.correlationId] === env.eventId,
    );
    expect(reply.key).toBe(env.eventId);
    expect(reply.json).toEqual({
      eventId: expect.any(String),
      type: 'test.echo.reply',
      version: 1,
      occurredAt: expect.any(String),
      correlationId: env.correlationId,
      causationId: env.eventId,
      payload: { ok: true, result: { echo: value, topic: Topics.ledgerCommands } },
    });
    expect(reply.json.eventId).not.toBe(env.eventId);
    expect(calls.filter((c) => c.eventId === env.eventId)).toHaveLength(1);
  });

  it('when one partition holds messages of several keys, then different keys are handled side by side and each key strictly in offset order', async () => {
    const run = randomUUID();
    const keys = Array.from({ length: 6 }, (_, i) => `lane-${i}-${run}`);
    const messages = [];
    for (let n = 0; n < 5; n++) {
      for (const key of keys) {
        const env = envelope({ type: 'test.slow', payload: { key, n, run }, occurredAt: new Date() });
        messages.push({ key, value: JSON.stringify(env), partition: 0 });
      }
    }
    // One produce request, one partition: the consumer sees them in one or a few batches.
    await producer!.send({ topic, acks: -1, messages });

    await eventually(
      async () => {
        const done = slowRuns.get(run);
        return done && [...done.order.values()].reduce((a, o) => a + o.length, 0) === 30 ? done : undefined;
      },
      20000,
      'all 30 slow messages handled',
    );
    const done = slowRuns.get(run)!;
    for (const key of keys) expect(done.order.get(key)).toEqual([0, 1, 2, 3, 4]);
    expect(done.maxRunning).toBeGreaterThan(1);
  });

  it('when a request has no reply-topic header, then it is handled and nothing is replied', async () => {
    const { env } = await sendEnvelope('test.echo', { value: 'no-reply' });
    await eventually(
      async () => (calls.some((c) => c.eventId === env.eventId) ? true : undefined),
      10000,
      'the handler call',
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(reader!.messages.filter((m) => m.json?.causationId === env.eventId)).toEqual([]);
  });

  it('when the database is unreachable for more tries than maxAttempts, then the message waits for it and is handled once it is back, never dead-lettered', async () => {
    const key = `agg-${randomUUID()}`;
    const outageCalls = maxAttempts + 3;
    const failing = await sendEnvelope('test.fail', { mode: 'outage', marker: randomUUID(), outageCalls }, key);
    const next = await sendEnvelope('test.ok', {}, key);

    await eventually(
      async () => (calls.some((c) => c.eventId === next.env.eventId) ? true : undefined),
      20000,
      'the next message of the partition',
    );
    expect(calls.filter((c) => c.eventId === failing.env.eventId)).toHaveLength(outageCalls + 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(reader!.messages.filter((m) => m.topic === dlq && m.json?.eventId === failing.env.eventId)).toEqual([]);
  });

  it('when a handler always fails, then it is tried maxAttempts times with backoff, dead-lettered with its error, and the next message of the partition is processed', async () => {
    const key = `agg-${randomUUID()}`;
    const marker = randomUUID();
    const failing = await sendEnvelope('test.fail', { mode: 'error', marker }, key, { 'x-origin': 'spec' });
    const next = await sendEnvelope('test.ok', {}, key);
    expect(next.partition).toBe(failing.partition);

    const dead = await deadLettered((m) => m.json?.eventId === failing.env.eventId);
    expect(dead.headers).toMatchObject({
      'dlq-error': `downstream unavailable (${marker})`,
      'dlq-original-topic': Topics.ledgerCommands,
      'dlq-original-partition': String(failing.partition),
      'dlq-original-offset': failing.offset,
      'dlq-consumer-group': 'transport-spec',
      'dlq-attempts': String(maxAttempts),
      'x-origin': 'spec',
    });
    expect(Number.isNaN(Date.parse(dead.headers['dlq-at']))).toBe(false);
    expect(dead.key).toBe(key);
    expect(dead.json).toEqual(failing.env);

    const attempts = calls.filter((c) => c.eventId === failing.env.eventId);
    expect(attempts).toHaveLength(maxAttempts);
    // Exponential backoff between attempts: retryBackoffMs, then twice that (a few ms of timer slack allowed).
    expect(attempts[1].at - attempts[0].at).toBeGreaterThanOrEqual(retryBackoffMs - 5);
    expect(attempts[2].at - attempts[1].at).toBeGreaterThanOrEqual(2 * retryBackoffMs - 5);

    await eventually(
      async () => (calls.some((c) => c.eventId === next.env.eventId) ? true : undefined),
      10000,
      'the next message',
    );
    const order = calls
      .filter((c) => c.eventId === failing.env.eventId || c.eventId === next.env.eventId)
      .map((c) => c.type);
    expect(order).toEqual([...Array(maxAttempts).fill('test.fail'), 'test.ok']);

    // The failed message's offset is committed too: after a restart it would not come back.
    const groupId = kafka.topicPrefix + 'transport-spec';
    await eventually(
      async () => {
        const [entry] = await admin!.fetchOffsets({ groupId, topics: [topic] });
        const committed = entry.partitions.find((p) => p.partition === failing.partition)!.offset;
        return BigInt(committed) > BigInt(next.offset) ? true : undefined;
      },
      10000,
      'offset committed past both messages',
    );
  });

  it('when a handler throws a ContractViolation, then the message is dead-lettered after one attempt', async () => {
    const marker = randomUUID();
    const { env } = await sendEnvelope('test.fail', { mode: 'contract', marker });
    const dead = await deadLettered((m) => m.json?.eventId === env.eventId);
    expect(dead.headers).toMatchObject({
      'dlq-error': `test.fail: payload.marker ${marker} is not allowed`,
      'dlq-original-topic': Topics.ledgerCommands,
      'dlq-attempts': '1',
    });
    expect(calls.filter((c) => c.eventId === env.eventId)).toHaveLength(1);
  });

  it.each([
    ['not JSON', 'not json', 'invalid envelope: value is not JSON'],
    ['empty (a tombstone)', null, 'invalid envelope: empty message value'],
    ['JSON without an envelope', JSON.stringify({ hello: 'world' }), 'invalid envelope: eventId must be a UUID'],
    [
      'an envelope without payload',
      JSON.stringify({ ...envelope({ type: 'test.ok', payload: {}, occurredAt: new Date() }), payload: undefined }),
      'invalid envelope: payload must be an object',
    ],
  ])(
    'when the value is %s, then it is dead-lettered at once with the reason and no handler runs',
    async (_case, value, reason) => {
      const key = `bad-${randomUUID()}`;
      const before = calls.length;
      const meta = await send(value, key);
      const dead = await deadLettered((m) => m.key === key);
      expect(dead.headers).toMatchObject({
        'dlq-error': reason,
        'dlq-original-topic': Topics.ledgerCommands,
        'dlq-original-partition': String(meta.partition),
        'dlq-original-offset': meta.baseOffset,
        'dlq-attempts': '0',
      });
      expect(dead.value).toBe(value);
      expect(calls.length).toBe(before);
    },
  );

  it('when a message has a type no handler knows, then it is dead-lettered naming the type', async () => {
    const { env, key } = await sendEnvelope('test.unknown', { x: 1 });
    const dead = await deadLettered((m) => m.key === key);
    expect(dead.headers).toMatchObject({
      'dlq-error': 'no handler for message type "test.unknown"',
      'dlq-original-topic': Topics.ledgerCommands,
      'dlq-attempts': '0',
    });
    expect(dead.json).toEqual(env);
    expect(calls.some((c) => c.eventId === env.eventId)).toBe(false);
  });

  describe('a batch handler', () => {
    /** Batch messages as one produce request to partition 0: the consumer fetches them together. */
    async function sendBatch(payloads: (Partial<BatchPayload> & { type?: string; same?: number })[]) {
      const envs: Envelope[] = [];
      for (const { type = 'test.batch', same, ...payload } of payloads)
        envs.push(same === undefined ? envelope({ type, payload, occurredAt: new Date() }) : envs[same]);
      await producer!.send({
        topic,
        acks: -1,
        messages: envs.map((env) => ({
          key: (env.payload as BatchPayload).key,
          value: JSON.stringify(env),
          partition: 0,
        })),
      });
      return envs;
    }

    const effects = async (ids: string[]) =>
      (await batchStore.ds!.query(
        `SELECT event_id, key, n FROM "${batchStore.schema}".effects WHERE event_id = ANY($1::uuid[]) ORDER BY id`,
        [ids],
      )) as { event_id: string; key: string; n: number }[];

    const allApplied = (ids: string[], what: string) =>
      eventually(
        async () => (ids.every((id) => applied.some((a) => a.eventId === id)) ? true : undefined),
        20000,
        what,
      );

    it('when messages of a batch handler arrive together, then it gets them in one call in offset order, and one another type keeps its own path', async () => {
      const run = randomUUID();
      const envs = await sendBatch(Array.from({ length: 8 }, (_, n) => ({ key: `k${n % 3}-${run}`, n })));
      const ids = envs.map((e) => e.eventId);
      await allApplied(ids, 'the batch applied');

      const call = batchCalls.find((c) => c.eventIds.includes(ids[0]))!;
      expect(call.eventIds).toEqual(ids);
      expect(call).toMatchObject({ topic: Topics.ledgerCommands, partition: 0 });
      expect((await effects(ids)).map((e) => e.event_id)).toEqual(ids);
    });

    it('when a batch holds a message twice and one already applied, then each is applied once and the offsets move on', async () => {
      const run = randomUUID();
      const [earlier] = await sendBatch([{ key: `dup-${run}`, n: 0 }]);
      await allApplied([earlier.eventId], 'the earlier message');
      const envs = await sendBatch([{ key: `dup-${run}`, n: 1 }, { same: 0 }, { key: `dup-${run}`, n: 2 }]);
      // The same envelope again, and the earlier one redelivered, in one batch.
      await producer!.send({
        topic,
        acks: -1,
        messages: [envs[0], earlier, envs[2]].map((env) => ({
          key: `dup-${run}`,
          value: JSON.stringify(env),
          partition: 0,
        })),
      });
      const next = await sendBatch([{ key: `dup-${run}`, n: 3 }]);
      await allApplied([next[0].eventId], 'the message after the duplicates');

      expect((await effects([earlier, ...envs, ...next].map((e) => e.eventId))).map((e) => e.n)).toEqual([0, 1, 2, 3]);
      expect(applied.filter((a) => a.key === `dup-${run}`).map((a) => a.n)).toEqual([0, 1, 2, 3]);
    });

    it('when one message of a batch is poison, then only it is dead-lettered, at once, and its neighbours are applied', async () => {
      const run = randomUUID();
      const envs = await sendBatch([
        { key: `a-${run}`, n: 0 },
        { key: `p-${run}`, n: 0, mode: 'contract' },
        { key: `a-${run}`, n: 1 },
        { key: `b-${run}`, n: 0 },
      ]);
      const poison = envs[1];
      const good = envs.filter((e) => e !== poison).map((e) => e.eventId);
      await allApplied(good, 'the good messages');

      const dead = await deadLettered((m) => m.json?.eventId === poison.eventId);
      expect(dead.headers).toMatchObject({ 'dlq-error': `test.batch: p-${run} is poison`, 'dlq-attempts': '1' });
      // One try with all four, then one without the poison.
      expect(batchCalls.filter((c) => c.eventIds.some((id) => envs.some((e) => e.eventId === id)))).toEqual([
        expect.objectContaining({ eventIds: envs.map((e) => e.eventId) }),
        expect.objectContaining({ eventIds: good }),
      ]);
      expect((await effects(envs.map((e) => e.eventId))).map((e) => e.event_id)).toEqual(good);
      await new Promise((r) => setTimeout(r, 300));
      expect(reader!.messages.filter((m) => m.topic === dlq && good.includes(m.json?.eventId as string))).toEqual([]);
    });

    it('when a batch fails without naming a message, then its messages are tried one by one: the failing one is dead-lettered after maxAttempts, the others applied', async () => {
      const run = randomUUID();
      const envs = await sendBatch([
        { key: `c-${run}`, n: 0 },
        { key: `e-${run}`, n: 0, mode: 'error' },
        { key: `c-${run}`, n: 1 },
      ]);
      const good = [envs[0].eventId, envs[2].eventId];
      await allApplied(good, 'the good messages');
      const dead = await deadLettered((m) => m.json?.eventId === envs[1].eventId);
      expect(dead.headers).toMatchObject({
        'dlq-error': `test.batch: e-${run} broke`,
        'dlq-attempts': String(maxAttempts),
      });
      expect(batchCalls.filter((c) => c.eventIds.includes(envs[1].eventId)).slice(1)).toEqual(
        Array(maxAttempts).fill(expect.objectContaining({ eventIds: [envs[1].eventId] })),
      );
      expect((await effects(envs.map((e) => e.eventId))).map((e) => e.n)).toEqual([0, 1]);
    });

    it('when the database is unreachable for more tries than maxAttempts, then the whole batch waits for it and is applied once, nothing dead-lettered', async () => {
      const run = randomUUID();
      const outageCalls = maxAttempts + 2;
      const envs = await sendBatch([
        { key: `o-${run}`, n: 0 },
        { key: `o-${run}`, n: 1, mode: 'outage', outageCalls },
        { key: `o-${run}`, n: 2 },
      ]);
      const ids = envs.map((e) => e.eventId);
      await allApplied(ids, 'the batch after the outage');

      const tries = batchCalls.filter((c) => c.eventIds.includes(ids[0]));
      expect(tries).toHaveLength(outageCalls + 1);
      for (const t of tries) expect(t.eventIds).toEqual(ids);
      expect((await effects(ids)).map((e) => e.n)).toEqual([0, 1, 2]);
      await new Promise((r) => setTimeout(r, 300));
      expect(reader!.messages.filter((m) => m.topic === dlq && ids.includes(m.json?.eventId as string))).toEqual([]);
    });

    it('when batch and per-message handlers share keys in a partition, then every key is applied in offset order', async () => {
      const run = randomUUID();
      const keys = [`x-${run}`, `y-${run}`, `z-${run}`];
      const sent: Envelope[] = [];
      for (let round = 0; round < 3; round++)
        sent.push(
          ...(await sendBatch(
            Array.from({ length: 9 }, (_, i) => ({
              key: keys[i % 3],
              n: round * 3 + Math.floor(i / 3),
              // Every fourth a message for the per-message path: the runs must not overtake each other.
              type: i % 4 === 3 ? 'test.ok' : 'test.batch',
            })),
          )),
        );
      await allApplied(
        sent.map((e) => e.eventId),
        'all 27 messages',
      );
      for (const key of keys)
        expect(applied.filter((a) => a.key === key).map((a) => a.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    });
  });
});
