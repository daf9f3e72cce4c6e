import { randomUUID } from 'node:crypto';
import { Controller, INestMicroservice, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { Admin, Partitioners, Producer } from 'kafkajs';
import { ContractViolation, dlqTopic, envelope, Envelope, okReply, ReplyHeaders, Topics } from '@payments/contracts';
import type { KafkaConfig } from '@payments/platform';
// Test infrastructure only; the boundary rule has no override for spec files yet.
import {
  createTestTopics,
  eventually,
  ReadMessage,
  testBrokers,
  testKafka,
  TopicReader,
  uniqueName,
} from '@payments/testing';
import { createTopicsAndWait } from './kafka';
import { KafkaMessageContext, KafkaTransport } from './kafka-transport';
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

@Controller()
class TestHandlers {
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
  ok(@Payload() env: Envelope, @Ctx() ctx: KafkaMessageContext) {
    record(env, ctx);
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
  const topic = prefix + Topics.ordersCommands;
  const dlq = prefix + dlqTopic(Topics.ordersCommands);
  const replies = `${prefix}test.replies`;
  const maxAttempts = 3;
  const retryBackoffMs = 50;
  let topics: { deleteAll(): Promise<void> } | undefined;
  let admin: Admin | undefined;
  let producer: Producer | undefined;
  let reader: TopicReader | undefined;
  let app: INestMicroservice | undefined;

  beforeAll(async () => {
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
      topics: [Topics.ordersCommands],
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
      payload: { ok: true, result: { echo: value, topic: Topics.ordersCommands } },
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
      'dlq-original-topic': Topics.ordersCommands,
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
      'dlq-original-topic': Topics.ordersCommands,
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
        'dlq-original-topic': Topics.ordersCommands,
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
      'dlq-original-topic': Topics.ordersCommands,
      'dlq-attempts': '0',
    });
    expect(dead.json).toEqual(env);
    expect(calls.some((c) => c.eventId === env.eventId)).toBe(false);
  });
});
