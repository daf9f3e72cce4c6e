import { Consumer, Producer, ProducerBatch } from 'kafkajs';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { envelope, Envelope, parseEnvelope } from '@payments/contracts';
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
import { Inbox } from './inbox';
import { createTopicsAndWait } from './kafka';
import { messagingTablesDdl, Outbox, OutboxItem } from './outbox';
import { OutboxRelay, OutboxRelayOptions } from './outbox-relay';

interface Seq {
  key: string;
  seq: number;
}

describe('outbox relay against PostgreSQL and Kafka', () => {
  const prefix = `${uniqueName('relay')}.`;
  const kafka: KafkaConfig = {
    brokers: testBrokers(),
    clientId: 'outbox-relay-spec',
    topicPrefix: prefix,
    replicationFactor: 1,
  };
  let db: { url: string; drop(): Promise<void> };
  let topics: { deleteAll(): Promise<void> };
  const dataSources: DataSource[] = [];
  const relays: OutboxRelay[] = [];
  const readers: TopicReader[] = [];
  const consumers: Consumer[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    topics = await createTestTopics(prefix);
    // Topics of the batch tests' own (deleteAll removes every topic of the prefix).
    const admin = testKafka('relay-spec-admin').admin();
    await admin.connect();
    await createTopicsAndWait(
      admin,
      ['batch.one', 'batch.two', 'partial.one', 'partial.two', 'relay.reconnect'].map((t) => ({
        topic: prefix + t,
        numPartitions: 2,
        replicationFactor: 1,
      })),
    );
    await admin.disconnect();
  });

  afterAll(async () => {
    for (const c of consumers) await c.disconnect().catch(() => undefined);
    for (const r of readers) await r.stop().catch(() => undefined);
    for (const r of relays) await r.stop().catch(() => undefined);
    for (const ds of dataSources) if (ds.isInitialized) await ds.destroy();
    await topics?.deleteAll();
    await db?.drop();
  });

  async function aDataSource(): Promise<DataSource> {
    const ds = new DataSource({ type: 'postgres', url: db.url, entities: [], logging: false });
    await ds.initialize();
    dataSources.push(ds);
    return ds;
  }

  /** A service schema of its own per test: its own outbox, inbox and advisory lock. */
  async function aSchema(ds: DataSource): Promise<string> {
    const schema = uniqueName('svc_');
    await ds.query(`CREATE SCHEMA "${schema}"`);
    for (const ddl of messagingTablesDdl(schema)) await ds.query(ddl);
    await ds.query(`CREATE TABLE "${schema}".effects (id bigserial PRIMARY KEY, event_id uuid NOT NULL)`);
    return schema;
  }

  async function aRelay(opts: Omit<OutboxRelayOptions, 'databaseUrl' | 'kafka'>): Promise<OutboxRelay> {
    const relay = new OutboxRelay({ databaseUrl: db.url, kafka, pollIntervalMs: 100, ...opts });
    relays.push(relay);
    await relay.start();
    return relay;
  }

  async function stopRelay(relay: OutboxRelay): Promise<void> {
    await relay.stop();
    relays.splice(relays.indexOf(relay), 1);
  }

  async function aReader(topic: string): Promise<TopicReader> {
    const reader = await TopicReader.start([prefix + topic], { contract: false });
    readers.push(reader);
    return reader;
  }

  function anEvent(topic: string, key: string, seq: number): OutboxItem {
    return {
      topic,
      key,
      envelope: envelope({ type: 'test.sequenced', payload: { key, seq }, occurredAt: new Date() }),
      headers: { 'x-test-seq': String(seq) },
    };
  }

  const write = (ds: DataSource, schema: string, items: OutboxItem[]) =>
    ds.transaction((m) => new Outbox(schema).add(m, items));

  async function unpublished(ds: DataSource, schema: string): Promise<number> {
    const [{ count }] = await ds.query(
      `SELECT count(*)::int AS count FROM "${schema}".outbox WHERE published_at IS NULL`,
    );
    return count;
  }

  function sequencesByKey(payloads: Seq[]): Map<string, number[]> {
    const byKey = new Map<string, number[]>();
    for (const p of payloads) byKey.set(p.key, [...(byKey.get(p.key) ?? []), p.seq]);
    return byKey;
  }

  /**
   * Rows committed by another process (no in-process wake-up), in a transaction per `perTx` rows:
   * a relay that is asleep finds them all at its next round.
   */
  async function writeElsewhere(schema: string, items: OutboxItem[], perTx = 3): Promise<void> {
    const client = new Client({ connectionString: db.url });
    await client.connect();
    try {
      for (let i = 0; i < items.length; i += perTx) {
        await client.query('BEGIN');
        for (const item of items.slice(i, i + perTx)) {
          await client.query(
            `INSERT INTO "${schema}".outbox (topic, key, event_id, envelope, headers) VALUES ($1, $2, $3, $4::jsonb, $5::jsonb)`,
            [item.topic, item.key, item.envelope.eventId, JSON.stringify(item.envelope), JSON.stringify(item.headers)],
          );
        }
        await client.query('COMMIT');
      }
    } finally {
      await client.end();
    }
  }

  /** The relay's producer, to watch its produce requests. */
  const producerOf = (relay: OutboxRelay) => (relay as unknown as { producer: Producer }).producer;

  /** Rows of keys a and b on one topic and of c and d on another, interleaved, 6 per key. */
  function interleaved(topicAB: string, topicCD: string): OutboxItem[] {
    const items: OutboxItem[] = [];
    for (let seq = 1; seq <= 6; seq++) {
      for (const key of ['a', 'b']) items.push(anEvent(topicAB, `key-${key}`, seq));
      for (const key of ['c', 'd']) items.push(anEvent(topicCD, `key-${key}`, seq));
    }
    return items;
  }

  /** UPDATE statements marking outbox rows published, as any pg client of this process sent them. */
  function watchMarks(): { marks: string[]; restore(): void } {
    const marks: string[] = [];
    const query = Client.prototype.query;
    const spy = jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text;
      if (text && /UPDATE "[^"]+"\.outbox SET published_at/.test(text)) marks.push(text);
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof Client.prototype.query);
    return { marks, restore: () => spy.mockRestore() };
  }

  it('when many rows of several keys and topics wait, then one round publishes them in one produce request, each once and in per-key order, and marks them all with one statement', async () => {
    const ds = await aDataSource();
    const schema = await aSchema(ds);
    const [t1, t2] = ['batch.one', 'batch.two'];
    const reader = await TopicReader.start([prefix + t1, prefix + t2], { contract: false });
    readers.push(reader);
    const batches: string[][] = [];
    const relay = await aRelay({
      dataSource: ds,
      schema,
      pollIntervalMs: 60_000,
      afterPublish: (ids) => void batches.push(ids),
    });
    await relay.drain(); // its first round is over: it sleeps until woken or drained
    const produce = jest.spyOn(producerOf(relay), 'sendBatch');
    const watch = watchMarks();
    try {
      const items = interleaved(t1, t2);
      await writeElsewhere(schema, items);

      expect(await relay.drain()).toBe(items.length);

      expect(produce).toHaveBeenCalledTimes(1);
      const request = produce.mock.calls[0][0] as ProducerBatch;
      expect(request.acks).toBe(-1);
      expect(request.topicMessages?.map((t) => [t.topic, t.messages.length])).toEqual([
        [prefix + t1, 12],
        [prefix + t2, 12],
      ]);
      expect(batches).toHaveLength(1);
      expect(batches[0]).toHaveLength(items.length);
      expect(watch.marks).toHaveLength(1);
      expect(await unpublished(ds, schema)).toBe(0);

      const seen = await reader.waitFor(items.length);
      await new Promise((r) => setTimeout(r, 300));
      expect(reader.messages).toHaveLength(items.length);
      expect(new Set(seen.map((m) => m.json.eventId))).toEqual(new Set(items.map((i) => i.envelope.eventId)));
      const inOrder = [1, 2, 3, 4, 5, 6];
      expect(sequencesByKey(seen.map((m) => m.json.payload))).toEqual(
        new Map(['key-a', 'key-b', 'key-c', 'key-d'].map((k) => [k, inOrder])),
      );
      for (const m of seen) expect(m.topic).toBe(prefix + (['key-a', 'key-b'].includes(m.key!) ? t1 : t2));
    } finally {
      watch.restore();
    }
  });

  it('when a produce request fails after part of the batch reached the broker, then no row of the batch is marked, and the next round publishes it all again in per-key order', async () => {
    const ds = await aDataSource();
    const schema = await aSchema(ds);
    const [t1, t2] = ['partial.one', 'partial.two'];
    const reader = await TopicReader.start([prefix + t1, prefix + t2], { contract: false });
    readers.push(reader);
    const relay = await aRelay({ dataSource: ds, schema, pollIntervalMs: 60_000 });
    await relay.drain();
    const producer = producerOf(relay);
    const send = producer.sendBatch.bind(producer);
    // The broker takes the first topic's messages, then the request fails (a partition's error).
    const produce = jest.spyOn(producer, 'sendBatch').mockImplementationOnce(async (batch) => {
      await send({ ...batch, topicMessages: batch.topicMessages!.slice(0, 1) });
      throw new Error('the broker failed the rest of the request');
    });
    const watch = watchMarks();
    try {
      const items = interleaved(t1, t2);
      await writeElsewhere(schema, items);

      await expect(relay.drain()).rejects.toThrow('the broker failed the rest of the request');
      expect(watch.marks).toEqual([]);
      expect(await unpublished(ds, schema)).toBe(items.length);
      await reader.waitFor(12);

      expect(await relay.drain()).toBe(items.length);
      expect(produce).toHaveBeenCalledTimes(2);
      expect(watch.marks).toHaveLength(1);
      expect(await unpublished(ds, schema)).toBe(0);

      const seen = await reader.waitFor(items.length + 12);
      await new Promise((r) => setTimeout(r, 300));
      expect(reader.messages).toHaveLength(items.length + 12);
      // The first topic's rows went out twice (consumers' inbox drops the second), the rest once;
      // each key's events in order each time.
      const inOrder = [1, 2, 3, 4, 5, 6];
      expect(sequencesByKey(seen.map((m) => m.json.payload))).toEqual(
        new Map([
          ['key-a', [...inOrder, ...inOrder]],
          ['key-b', [...inOrder, ...inOrder]],
          ['key-c', inOrder],
          ['key-d', inOrder],
        ]),
      );
    } finally {
      watch.restore();
    }
  });

  it("when the relay's database connection is lost between rounds, then the next round opens another and publishes", async () => {
    const ds = await aDataSource();
    const schema = await aSchema(ds);
    const topic = 'relay.reconnect';
    const reader = await aReader(topic);
    await aRelay({ dataSource: ds, schema, pollIntervalMs: 100 });
    await write(ds, schema, [anEvent(topic, 'k', 1)]);
    await reader.waitFor(1);

    const [{ n }] = await ds.query(
      `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = left($1, 63)`,
      [`${schema} outbox relay`],
    );
    expect(n).toBe(1);
    await write(ds, schema, [anEvent(topic, 'k', 2)]);

    const seen = await reader.waitFor(2, () => true, 10_000);
    expect(seen.map((m) => m.json.payload.seq)).toEqual([1, 2]);
    await eventually(async () => ((await unpublished(ds, schema)) === 0 ? true : undefined), 10000, 'all rows marked');
  });

  it('when rows are added in committed transactions, then they are published in id order per key and marked published; rows of a rolled-back transaction never are', async () => {
    const ds = await aDataSource();
    const schema = await aSchema(ds);
    const topic = 'orders.events';
    const reader = await aReader(topic);

    const first = [anEvent(topic, 'order-a', 1), anEvent(topic, 'order-b', 1), anEvent(topic, 'order-a', 2)];
    await write(ds, schema, first);
    const rolledBack = [anEvent(topic, 'order-a', 99), anEvent(topic, 'order-b', 99)];
    await expect(
      ds.transaction(async (m) => {
        await new Outbox(schema).add(m, rolledBack);
        throw new Error('the state change failed');
      }),
    ).rejects.toThrow('the state change failed');
    const second = [anEvent(topic, 'order-b', 2), anEvent(topic, 'order-a', 3)];
    await write(ds, schema, second);
    const third = [anEvent(topic, 'order-c', 1), anEvent(topic, 'order-b', 3)];
    await write(ds, schema, third);
    const committed = [...first, ...second, ...third];

    await aRelay({ dataSource: ds, schema });
    const seen = await reader.waitFor(committed.length);
    // Anything published after the last committed row would show up now.
    await eventually(async () => ((await unpublished(ds, schema)) === 0 ? true : undefined), 10000, 'all rows marked');
    await new Promise((r) => setTimeout(r, 500));

    expect(reader.messages.length).toBe(committed.length);
    const rolledBackIds = rolledBack.map((i) => i.envelope.eventId);
    expect(reader.messages.filter((m) => rolledBackIds.includes(m.json?.eventId))).toEqual([]);
    expect(sequencesByKey(seen.map((m) => m.json.payload))).toEqual(
      new Map([
        ['order-a', [1, 2, 3]],
        ['order-b', [1, 2, 3]],
        ['order-c', [1]],
      ]),
    );

    for (const item of committed) {
      const msg = seen.find((m) => m.json.eventId === item.envelope.eventId);
      expect(msg).toMatchObject({
        key: item.key,
        json: item.envelope,
        headers: { 'x-test-seq': item.headers!['x-test-seq'] },
      });
    }
    const rows: { event_id: string; published_at: Date | null }[] = await ds.query(
      `SELECT event_id, published_at FROM "${schema}".outbox ORDER BY id`,
    );
    expect(rows.map((r) => r.event_id)).toEqual(committed.map((i) => i.envelope.eventId));
    expect(rows.every((r) => r.published_at instanceof Date)).toBe(true);
  });

  it('when the relay is idle with a long poll interval, then a commit wakes it through NOTIFY and the rows go out at once', async () => {
    const ds = await aDataSource();
    const schema = await aSchema(ds);
    const topic = 'provider.events';
    const reader = await aReader(topic);
    await aRelay({ dataSource: ds, schema, pollIntervalMs: 60_000 });
    // Let the relay finish its first (empty) round and go to sleep for the poll interval.
    await new Promise((r) => setTimeout(r, 300));

    const started = Date.now();
    const item = anEvent(topic, 'provider-1', 1);
    await write(ds, schema, [item]);
    const [msg] = await reader.waitFor(1, () => true, 5000);
    expect(msg.json.eventId).toBe(item.envelope.eventId);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('when the relay dies between publishing and marking, then a new relay publishes the batch again and an inbox consumer still applies each event exactly once', async () => {
    const ds = await aDataSource();
    const schema = await aSchema(ds);
    const topic = 'payouts.events';
    const reader = await aReader(topic);
    const items = Array.from({ length: 10 }, (_, i) => anEvent(topic, `payout-${i % 3}`, Math.floor(i / 3) + 1));
    const eventIds = items.map((i) => i.envelope.eventId);

    // The idempotent consumer: one row in `effects` per processed event, the eventId claimed in the same transaction.
    const inbox = new Inbox(ds, schema, 'effects-consumer');
    const outcomes: string[] = [];
    const consumer = testKafka('relay-spec-inbox').consumer({
      groupId: `${prefix}inbox`,
      maxWaitTimeInMs: 200,
      sessionTimeout: 10_000,
      heartbeatInterval: 1000,
    });
    consumers.push(consumer);
    const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
    await consumer.connect();
    await consumer.subscribe({ topic: prefix + topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        const parsed = parseEnvelope(message.value);
        if (parsed.kind !== 'ok') throw new Error(`unexpected message: ${parsed.reason}`);
        const env: Envelope = parsed.envelope;
        const outcome = await inbox.process(env, (m) =>
          m.query(`INSERT INTO "${schema}".effects (event_id) VALUES ($1)`, [env.eventId]),
        );
        outcomes.push(outcome.kind);
      },
    });
    await joined;

    let crashes = 0;
    let crashed!: () => void;
    const firstCrash = new Promise<void>((resolve) => (crashed = resolve));
    const dying = await aRelay({
      dataSource: ds,
      schema,
      afterPublish: () => {
        crashes++;
        crashed();
        throw new Error('relay killed after publishing, before marking');
      },
    });
    await write(ds, schema, items);
    await firstCrash;
    await stopRelay(dying);
    expect(crashes).toBeGreaterThanOrEqual(1);
    expect(await unpublished(ds, schema)).toBe(items.length);
    await reader.waitFor(items.length);

    await aRelay({ dataSource: ds, schema });
    await eventually(
      async () => ((await unpublished(ds, schema)) === 0 ? true : undefined),
      10000,
      'rows marked by the new relay',
    );
    const onTopic = await reader.waitFor(items.length * 2);
    for (const id of eventIds) expect(onTopic.filter((m) => m.json.eventId === id).length).toBeGreaterThanOrEqual(2);

    await eventually(
      async () => (outcomes.length >= onTopic.length ? true : undefined),
      10000,
      'every delivery handled by the consumer',
    );
    const effects: { event_id: string; n: number }[] = await ds.query(
      `SELECT event_id, count(*)::int AS n FROM "${schema}".effects GROUP BY event_id ORDER BY event_id`,
    );
    expect(effects).toEqual([...eventIds].sort().map((event_id) => ({ event_id, n: 1 })));
    expect(outcomes.filter((o) => o === 'processed')).toHaveLength(items.length);
    expect(outcomes.filter((o) => o === 'duplicate').length).toBe(outcomes.length - items.length);
    expect(outcomes.length - items.length).toBeGreaterThanOrEqual(items.length);
  });

  it('when the outbox-after-publish failpoint is set, then the relay SIGKILLs its own process once afterRows rows went out, with the batch on the broker and its rows not marked', async () => {
    const ds = await aDataSource();
    const schema = await aSchema(ds);
    const topic = 'merchant-callbacks.commands';
    const reader = await aReader(topic);
    // A throwing stand-in for the kill: the batch's transaction rolls back as the dead process's would.
    const kills: unknown[][] = [];
    const kill = jest.spyOn(process, 'kill').mockImplementation(((...args: unknown[]) => {
      kills.push(args);
      throw new Error('killed by the failpoint');
    }) as typeof process.kill);
    try {
      const relay = await aRelay({ dataSource: ds, schema, failpoint: { name: 'outbox-after-publish', afterRows: 3 } });
      const before = [anEvent(topic, 'cmd-1', 1), anEvent(topic, 'cmd-1', 2)];
      await write(ds, schema, before);
      await eventually(
        async () => ((await unpublished(ds, schema)) === 0 ? true : undefined),
        10000,
        'first batch marked',
      );
      expect(kills).toEqual([]);

      const batch = [anEvent(topic, 'cmd-1', 3), anEvent(topic, 'cmd-2', 1)];
      await write(ds, schema, batch);
      await eventually(async () => (kills.length > 0 ? true : undefined), 10000, 'the failpoint fired');
      await stopRelay(relay);
      expect(kills[0]).toEqual([process.pid, 'SIGKILL']);
      const onTopic = await reader.waitFor(before.length + batch.length);
      expect(onTopic.map((m) => m.json.eventId)).toEqual(expect.arrayContaining(batch.map((i) => i.envelope.eventId)));
      expect(await unpublished(ds, schema)).toBe(batch.length);
    } finally {
      kill.mockRestore();
    }
  });

  it('when two relays run at once on one schema, then no key is ever published out of order', async () => {
    const dsA = await aDataSource();
    const dsB = await aDataSource();
    const schema = await aSchema(dsA);
    const topic = 'p2p.events';
    const reader = await aReader(topic);
    const keys = ['p2p-1', 'p2p-2', 'p2p-3', 'p2p-4', 'p2p-5'];
    const perKey = 40;

    const publishedBy = { a: 0, b: 0 };
    // Holding each batch a little keeps the lock busy, so the two relays really contend for it.
    const hold = (who: 'a' | 'b') => async () => {
      publishedBy[who]++;
      await new Promise((r) => setTimeout(r, 5));
    };
    await aRelay({ dataSource: dsA, schema, batchSize: 7, pollIntervalMs: 20, afterPublish: hold('a') });
    await aRelay({ dataSource: dsB, schema, batchSize: 7, pollIntervalMs: 20, afterPublish: hold('b') });

    // One writer per key, all at once: rows of different keys interleave in the outbox, rows of one key are written in order.
    await Promise.all(
      keys.map(async (key, k) => {
        for (let seq = 1; seq <= perKey;) {
          const n = 1 + ((seq + k) % 2);
          const items = [];
          for (let j = 0; j < n && seq <= perKey; j++, seq++) items.push(anEvent(topic, key, seq));
          await write(dsA, schema, items);
        }
      }),
    );

    await reader.waitFor(keys.length * perKey, () => true, 20000);
    await eventually(async () => ((await unpublished(dsA, schema)) === 0 ? true : undefined), 10000, 'all rows marked');
    await new Promise((r) => setTimeout(r, 300));

    const expected = Array.from({ length: perKey }, (_, i) => i + 1);
    const byKey = sequencesByKey(reader.messages.map((m) => m.json.payload));
    for (const key of keys) expect({ key, seqs: byKey.get(key) }).toEqual({ key, seqs: expected });
    expect(reader.messages.length).toBe(keys.length * perKey);
    // Both relays took part; otherwise this test would not have checked their coordination.
    expect(publishedBy.a).toBeGreaterThan(0);
    expect(publishedBy.b).toBeGreaterThan(0);
  });
});
