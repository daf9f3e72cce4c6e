// The outbox relay publishes committed rows in order per key and marks them: after a lost
// database connection, and at once when a commit's NOTIFY wakes it.
import { eventually } from '@payments/testing';
import { Outbox } from './outbox';
import { outboxRelayHarness } from './outbox-relay.spec-support';

describe('outbox relay against PostgreSQL and Kafka', () => {
  const { aDataSource, aSchema, aRelay, aReader, anEvent, write, unpublished, sequencesByKey } = outboxRelayHarness([
    'relay.reconnect',
  ]);

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
});
