// Shared set-up of the outbox relay's component specs (outbox-relay*.component.spec.ts): a test
// database and topic prefix, a schema per test, relays, readers and consumers stopped after all,
// and the helpers that write, count and watch outbox rows.
import { Consumer, Producer } from 'kafkajs';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { envelope } from '@payments/contracts';
import type { KafkaConfig } from '@payments/platform';
import {
  createTestDatabase,
  createTestTopics,
  testBrokers,
  testKafka,
  TopicReader,
  uniqueName,
} from '@payments/testing';
import { createTopicsAndWait } from './kafka';
import { messagingTablesDdl, Outbox, OutboxItem } from './outbox';
import { OutboxRelay, OutboxRelayOptions } from './outbox-relay';

export interface Seq {
  key: string;
  seq: number;
}

/**
 * Registers beforeAll/afterAll in the calling describe and returns the helpers. `ownTopics` are
 * created up front with 2 partitions each (deleteAll removes every topic of the prefix).
 */
export function outboxRelayHarness(ownTopics: string[] = []) {
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
    if (!ownTopics.length) return;
    const admin = testKafka('relay-spec-admin').admin();
    await admin.connect();
    await createTopicsAndWait(
      admin,
      ownTopics.map((t) => ({
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

  return {
    prefix,
    readers,
    consumers,
    aDataSource,
    aSchema,
    aRelay,
    stopRelay,
    aReader,
    anEvent,
    write,
    unpublished,
    sequencesByKey,
    writeElsewhere,
    producerOf,
    interleaved,
    watchMarks,
  };
}
