import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { Partitioners, Producer } from 'kafkajs';
import { DataSource } from 'typeorm';
import {
  allowedOnTopic,
  Audiences,
  commandTopicAudience,
  audienceReplyTopic,
  commandAudiences,
  CommandServices,
  Envelope,
  envelope,
  okReply,
  ReplyHeaders,
  ReplyTopics,
  serviceCommandTopics,
} from '@payments/contracts';
import { PaymentsMetrics } from '@payments/platform';
import type { KafkaConfig } from '@payments/platform';
// Test infrastructure only; the boundary rule has no override for spec files yet.
import {
  createTestDatabase,
  createTestTopics,
  eventually,
  testBrokers,
  testKafka,
  TopicReader,
  uniqueName,
} from '@payments/testing';
import { KafkaTransport } from './kafka-transport';

const operator = { id: '4e1f0a9b-3c2d-4b5a-8e7f-6d5c4b3a2910', name: 'Alice Martin', role: 'operator' } as const;

/**
 * Decision 263 against Kafka: one consumer takes every command topic of every domain service and
 * handles every command type of `commandAudiences` by writing a row (the state change). Every
 * (type, topic) pair the table forbids is sent twice — asking for the reply on the topic's own
 * audience's reply topic (answered: forbidden) and on another audience's (dropped) — and no row is
 * written for any of them.
 */
describe('Commands refused off their audience path (KafkaTransport against Kafka)', () => {
  const prefix = `${uniqueName('ag')}.`;
  const kafka: KafkaConfig = {
    brokers: testBrokers(),
    clientId: 'audience-guard-spec',
    topicPrefix: prefix,
    replicationFactor: 1,
  };
  const schema = uniqueName('ag_');
  const commandTopics = CommandServices.flatMap((s) => serviceCommandTopics(s));
  const types = Object.keys(commandAudiences);
  let topics: { deleteAll(): Promise<void> } | undefined;
  let db: { url: string; drop(): Promise<void> } | undefined;
  let ds: DataSource | undefined;
  let producer: Producer | undefined;
  let reader: TopicReader | undefined;
  let transport: KafkaTransport | undefined;

  beforeAll(async () => {
    Logger.overrideLogger(false);
    db = await createTestDatabase();
    ds = new DataSource({ type: 'postgres', url: db.url, entities: [], logging: false });
    await ds.initialize();
    await ds.query(`CREATE SCHEMA "${schema}"`);
    await ds.query(
      `CREATE TABLE "${schema}".effects (event_id uuid PRIMARY KEY, type text NOT NULL, topic text NOT NULL)`,
    );
    topics = await createTestTopics(prefix);
    producer = testKafka('ag-producer').producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    reader = await TopicReader.start(
      Object.values(ReplyTopics).map((t) => prefix + t),
      { contract: false },
    );
    transport = new KafkaTransport({
      kafka,
      groupId: 'audience-guard-spec',
      topics: commandTopics,
      retryBackoffMs: 50,
    });
    for (const type of types)
      transport.addHandler(type, async (env: Envelope, ctx: { topic: string }) => {
        await ds!.query(`INSERT INTO "${schema}".effects VALUES ($1, $2, $3)`, [env.eventId, env.type, ctx.topic]);
        return okReply({ done: true });
      });
    await new Promise<void>((resolve, reject) =>
      transport!.listen((err?: unknown) =>
        err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(),
      ),
    );
    await transport.whenJoined();
  });

  afterAll(async () => {
    await transport?.close();
    await reader?.stop();
    await producer?.disconnect();
    await topics?.deleteAll();
    if (ds?.isInitialized) await ds.destroy();
    await db?.drop();
  });

  async function send(
    type: string,
    topic: string,
    replyTopic: string | undefined,
    key = randomUUID(),
    payload: Record<string, unknown> = { probe: true },
  ): Promise<string> {
    const env = envelope({ type, payload, occurredAt: new Date(), correlationId: randomUUID() });
    await producer!.send({
      topic: prefix + topic,
      acks: -1,
      messages: [
        {
          key,
          value: JSON.stringify(env),
          headers: replyTopic ? { [ReplyHeaders.replyTopic]: prefix + replyTopic } : {},
        },
      ],
    });
    return env.eventId;
  }

  const forbidden = commandTopics.flatMap((topic) =>
    types.filter((type) => !allowedOnTopic(type, topic)).map((type) => ({ type, topic })),
  );
  /** Each reply topic but the topic's own audience's, in turn (checkout's, the gateway's, ...). */
  const otherReplyTopic = (topic: string, i: number) => {
    const others = Object.values(ReplyTopics).filter((t) => t !== audienceReplyTopic(topic));
    return others[i % others.length];
  };

  it('when the table is read, then every command type has at least one audience and every audience a reply topic', () => {
    for (const [type, entry] of Object.entries(commandAudiences))
      expect({ type, n: entry.audiences.length > 0 }).toEqual({ type, n: true });
    expect(Audiences.map((a) => a)).toEqual(['merchant', 'payer', 'operator', 'provider']);
    // e.g. the finding of issue 28: payout.list_for_operator from checkout's path.
    expect(forbidden).toContainEqual({ type: 'payout.list_for_operator', topic: 'payouts.commands' });
    expect(forbidden).toContainEqual({ type: 'order.resolve', topic: 'orders.commands' });
    expect(forbidden).toContainEqual({ type: 'order.create', topic: 'orders.ops-commands' });
    expect(forbidden.length).toBeGreaterThan(300);
  });

  it('when each forbidden (type, topic) is sent, then it is answered forbidden on its own audience reply topic or dropped, and nothing is written', async () => {
    const refused = PaymentsMetrics.commandsRefused;
    const before = (await refused.get()).values.reduce((n, v) => n + v.value, 0);
    const answered = new Map<string, { type: string; topic: string }>();
    const dropped: string[] = [];
    for (const [i, { type, topic }] of forbidden.entries()) {
      answered.set(await send(type, topic, audienceReplyTopic(topic)!), { type, topic });
      dropped.push(await send(type, topic, otherReplyTopic(topic, i)));
    }
    const ids = [...answered.keys(), ...dropped];
    const count = async () => (await refused.get()).values.reduce((n, v) => n + v.value, 0) - before;
    await eventually(async () => ((await count()) === ids.length ? true : undefined), 60_000);
    const replies = await reader!.waitFor(answered.size, (m) => answered.has(m.headers[ReplyHeaders.correlationId]));
    for (const reply of replies) {
      const { type, topic } = answered.get(reply.headers[ReplyHeaders.correlationId])!;
      expect(reply.topic).toBe(prefix + audienceReplyTopic(topic));
      expect(reply.json).toMatchObject({
        payload: {
          ok: false,
          error: { code: 'forbidden', detail: expect.stringContaining(`${type} is not allowed on this path`) },
        },
      });
    }
    expect(reader!.messages.filter((m) => dropped.includes(m.headers[ReplyHeaders.correlationId]))).toEqual([]);
    const [{ n }] = await ds!.query(`SELECT count(*)::int AS n FROM "${schema}".effects WHERE event_id = ANY($1)`, [
      ids,
    ]);
    expect(n).toBe(0);
    expect(await count()).toBe(ids.length);
  }, 120_000);

  it('when each operator command type comes through its operator path without a valid operator, then it is answered forbidden or dropped, nothing is written, and with its operator it is handled (decision 301)', async () => {
    const refused = PaymentsMetrics.commandsRefused;
    const noOperator = async () =>
      (await refused.get()).values.filter((v) => v.labels.reason === 'no_operator').reduce((n, v) => n + v.value, 0);
    const before = await noOperator();
    const paths = commandTopics.flatMap((topic) =>
      commandTopicAudience(topic)?.audience === 'operator'
        ? types.filter((type) => allowedOnTopic(type, topic)).map((type) => ({ type, topic }))
        : [],
    );
    expect(paths).toContainEqual({ type: 'order.resolve', topic: 'orders.ops-commands' });
    expect(paths.length).toBeGreaterThanOrEqual(16);
    const answered = new Set<string>();
    const dropped: string[] = [];
    const handled: string[] = [];
    for (const { type, topic } of paths) {
      // One key per type: the command with its operator comes after the refused ones, on one partition.
      const key = randomUUID();
      answered.add(await send(type, topic, ReplyTopics.backoffice, key, { probe: true }));
      answered.add(await send(type, topic, ReplyTopics.backoffice, key, { operator: { ...operator, id: 'root' } }));
      dropped.push(await send(type, topic, undefined, key, { operator: { ...operator, name: '' } }));
      handled.push(await send(type, topic, ReplyTopics.backoffice, key, { operator }));
    }
    const replies = await reader!.waitFor(answered.size + handled.length, (m) =>
      [...answered, ...handled].includes(m.headers[ReplyHeaders.correlationId]),
    );
    for (const reply of replies) {
      const id = reply.headers[ReplyHeaders.correlationId];
      expect(reply.topic).toBe(prefix + ReplyTopics.backoffice);
      if (answered.has(id))
        expect(reply.json).toMatchObject({
          payload: { ok: false, error: { code: 'forbidden', detail: expect.stringContaining('without its operator') } },
        });
      else expect(reply.json).toMatchObject({ payload: { ok: true } });
    }
    const rows: { event_id: string }[] = await ds!.query(
      `SELECT event_id FROM "${schema}".effects WHERE event_id = ANY($1)`,
      [[...answered, ...dropped, ...handled]],
    );
    expect(rows.map((r) => r.event_id).sort()).toEqual([...handled].sort());
    expect((await noOperator()) - before).toBe(answered.size + dropped.length);
  }, 120_000);

  it('when an allowed command asks for its reply on another audience reply topic, then it is dropped and not handled', async () => {
    // One key: one partition, so the second is handled after the first.
    const key = randomUUID();
    const eventId = await send('payout.list_for_operator', 'payouts.ops-commands', ReplyTopics.checkout, key);
    const control = await send('payout.resolve', 'payouts.ops-commands', ReplyTopics.backoffice, key, { operator });
    await reader!.waitFor(1, (m) => m.headers[ReplyHeaders.correlationId] === control);
    const rows: { event_id: string }[] = await ds!.query(
      `SELECT event_id FROM "${schema}".effects WHERE event_id = ANY($1)`,
      [[eventId, control]],
    );
    expect(rows.map((r) => r.event_id)).toEqual([control]);
    expect(reader!.messages.filter((m) => m.headers[ReplyHeaders.correlationId] === eventId)).toEqual([]);
  }, 60_000);
});
