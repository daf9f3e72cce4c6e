// The outbox relay when it dies or has company: a relay killed between publishing and marking,
// the outbox-after-publish failpoint, and two relays contending for one schema.
import { Client } from 'pg';
import { Envelope, parseEnvelope } from '@payments/contracts';
import { eventually, testKafka } from '@payments/testing';
import { Inbox } from './inbox';
import { outboxRelayHarness } from './outbox-relay.spec-support';

describe('outbox relay against PostgreSQL and Kafka', () => {
  const {
    prefix,
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
  } = outboxRelayHarness();

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

  /** How many messages the topic holds, over all its partitions (retried while a new topic's leaders settle). */
  async function messagesOn(topic: string): Promise<number> {
    const admin = testKafka('relay-spec-offsets').admin();
    await admin.connect();
    try {
      const offsets = await eventually(() => admin.fetchTopicOffsets(prefix + topic), 10000, `offsets of ${topic}`);
      return offsets.reduce((sum, p) => sum + Number(p.high) - Number(p.low), 0);
    } finally {
      await admin.disconnect();
    }
  }

  // Decision 347. The late relay's statement starts (and reads its snapshot, when the read is in
  // the lock's statement) while the other still holds the lock; its lock call is made to sleep,
  // as a process stalled mid-statement would, until the other has marked, committed and let go.
  it.each(['read committed', 'repeatable read'])(
    'when a relay takes the lock just as another marks and commits its batch, then it does not publish that batch again (session default %s)',
    async (isolation) => {
      const ds = await aDataSource();
      const schema = await aSchema(ds);
      const topic = 'orders.events';
      await ds.query(`CREATE FUNCTION "${schema}".late_try_lock(k bigint) RETURNS boolean LANGUAGE plpgsql AS $$
        BEGIN PERFORM pg_sleep(2); RETURN pg_try_advisory_xact_lock(k); END $$`);
      const reader = await aReader(topic);
      const items = Array.from({ length: 4 }, (_, i) => anEvent(topic, `order-${isolation}-${i}`, 1));
      const eventIds = items.map((i) => i.envelope.eventId);
      const before = await messagesOn(topic);

      let holding!: () => void;
      const held = new Promise<void>((resolve) => (holding = resolve));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      await aRelay({
        dataSource: ds,
        schema,
        pollIntervalMs: 60_000,
        afterPublish: async () => {
          holding();
          await released;
        },
      });
      await write(ds, schema, items);
      await held; // the batch is on the broker, its rows not marked, the lock held

      // The next claim on this schema (the late relay's first; the first relay is held) sleeps in its lock call.
      let lateClaim: Promise<unknown> | undefined;
      const query = Client.prototype.query as (...a: unknown[]) => Promise<unknown>;
      const spy = jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
        const text = typeof args[0] === 'string' ? args[0] : '';
        if (!lateClaim && text.includes('pg_try_advisory_xact_lock(') && text.includes(`"${schema}".outbox`)) {
          const claim = text.replace('pg_try_advisory_xact_lock(', `"${schema}".late_try_lock(`);
          const setDefault = `SET default_transaction_isolation = '${isolation}'`;
          lateClaim = query.call(this, setDefault).then(() => query.call(this, claim));
          return lateClaim;
        }
        return query.apply(this, args);
      } as typeof Client.prototype.query);
      try {
        const late = await aRelay({ dataSource: ds, schema, pollIntervalMs: 60_000 });
        await eventually(
          async () => {
            const [{ n }] = await ds.query(
              `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event = 'PgSleep'`,
              [`${schema} outbox relay`],
            );
            return n === 1 ? true : undefined;
          },
          10000,
          "the late relay's claim started",
        );
        release();
        await eventually(async () => ((await unpublished(ds, schema)) === 0 ? true : undefined), 10000, 'batch marked');
        await lateClaim!.catch(() => undefined);
        await late.drain(); // after the late relay's round in flight
      } finally {
        release();
        spy.mockRestore();
      }

      // Sends are acknowledged before their rows are marked: all there is is on the broker now.
      expect((await messagesOn(topic)) - before).toBe(items.length);
      const ours = (m: { json: { eventId: string } }) => eventIds.includes(m.json.eventId);
      const onTopic = await reader.waitFor(items.length, ours);
      expect(onTopic.map((m) => m.json.eventId).sort()).toEqual([...eventIds].sort());
    },
  );
});
