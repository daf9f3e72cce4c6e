// KafkaTransport per message: replies, per-key order across a partition, retries with backoff,
// waiting out a database outage, and dead-lettering (failures, contract violations, bad input).
import { randomUUID } from 'node:crypto';
import { Admin, Producer } from 'kafkajs';
import { envelope, ReplyHeaders, Topics } from '@payments/contracts';
import { eventually, TopicReader } from '@payments/testing';
import { calls, kafkaTransportHarness, slowRuns } from './kafka-transport.spec-support';

describe('KafkaTransport in a NestJS microservice against Kafka', () => {
  const { kafka, topic, dlq, replies, maxAttempts, retryBackoffMs, clients, send, sendEnvelope, deadLettered } =
    kafkaTransportHarness();
  let admin: Admin | undefined, producer: Producer | undefined, reader: TopicReader | undefined;
  beforeAll(() => {
    ({ admin, producer, reader } = clients());
  });

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
});
