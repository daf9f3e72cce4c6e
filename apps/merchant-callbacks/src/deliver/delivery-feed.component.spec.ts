import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { toCallbackBody } from '@payments/merchant-callbacks-domain';
import { Inbox } from '@payments/messaging';
import { openServiceDatabase } from '@payments/platform';
// Test infrastructure only; the boundary rule has no override for spec files yet.
import { createTestDatabase } from '@payments/testing';
import { MerchantCallbacksConfig } from '../config';
import { DeliveryRepository, NewDelivery } from './delivery.repository';
import { FeedRepository } from '../read-feed/feed.repository';
import { MERCHANT_CALLBACKS_MIGRATIONS } from '../migrations';
import { Init1764200000000 } from '../migrations/1764200000000-init';

const SCHEMA = 'merchant_callbacks';
const SHOP = randomUUID();
const OTHER = randomUUID();
const NOW = new Date('2026-11-24T12:00:00Z');

function aDelivery(shopId: string, sequence: number) {
  const eventId = randomUUID();
  return {
    eventId,
    urlOverride: null,
    body: toCallbackBody(eventId, NOW.toISOString(), {
      type: 'order.status_changed',
      objectId: randomUUID(),
      shopId,
      merchantReference: `m-${sequence}`,
      sequence,
      status: 'registered',
      previousStatus: null,
      cost: { amount: '1.00', currency: 'USD' },
    }),
  };
}

/** The events feed's positions against PostgreSQL: the migration's numbering, and commit order under concurrency. */
describe('the feed positions of deliveries', () => {
  let db: { url: string; drop(): Promise<void> };
  let ds: DataSource;
  let inbox: Inbox;
  /** One delivery the way the consumer records it (its inbox row in the same statement), in `m`'s transaction. */
  const record = async (m: EntityManager, d: NewDelivery, now: Date): Promise<string> =>
    (await deliveries.insertFresh([d], inbox.cte('ib', [d]), now, m)).get(d.eventId.toLowerCase())!;
  let deliveries: DeliveryRepository;
  let feeds: FeedRepository;
  /** The deliveries recorded before the migration: [shop, eventId] in recording order. */
  let oldEvents: [string, string][] = [];
  const feed = async (shopId: string, afterPosition = 0): Promise<[number, string][]> =>
    (await feeds.feed({ shopId, afterPosition, limit: 100 })).rows.map((r): [number, string] => [
      Number(r.feed_position),
      r.event_id,
    ]);

  beforeAll(async () => {
    db = await createTestDatabase();
    // Deliveries recorded before the feed existed, two shops interleaved.
    const before = await openServiceDatabase({
      url: db.url,
      schema: SCHEMA,
      entities: [],
      migrations: [Init1764200000000],
    });
    const old: [string, string][] = [];
    for (const shopId of [SHOP, OTHER, SHOP, SHOP, OTHER]) {
      const d = aDelivery(shopId, old.length + 1);
      await before.query(
        `INSERT INTO ${SCHEMA}.deliveries (id, event_id, type, object_type, object_id, shop_id, sequence, body, window_started_at)
         VALUES ($1, $2, $3, 'order', $4, $5, $6, $7, now())`,
        [randomUUID(), d.eventId, d.body.type, d.body.objectId, shopId, d.body.sequence, JSON.stringify(d.body)],
      );
      old.push([shopId, d.eventId]);
    }
    await before.destroy();
    ds = await openServiceDatabase({
      url: db.url,
      schema: SCHEMA,
      entities: [],
      migrations: MERCHANT_CALLBACKS_MIGRATIONS,
    });
    deliveries = new DeliveryRepository(ds, { schema: SCHEMA } as MerchantCallbacksConfig);
    feeds = new FeedRepository(ds, { schema: SCHEMA } as MerchantCallbacksConfig);
    inbox = new Inbox(ds, SCHEMA, 'merchant-callbacks');
    oldEvents = old;
  });

  afterAll(async () => {
    if (ds?.isInitialized) await ds.destroy();
    await db?.drop();
  });

  it('when the migration runs over existing deliveries, then each shop gets positions 1, 2, … in the order they were recorded', async () => {
    const ofShop = (shopId: string) => oldEvents.filter(([s]) => s === shopId).map(([, e]) => e);
    expect(await feed(SHOP)).toEqual(ofShop(SHOP).map((e, i) => [i + 1, e]));
    expect(await feed(OTHER)).toEqual(ofShop(OTHER).map((e, i) => [i + 1, e]));
  });

  it('when the migrations run over pending deliveries, then each of their objects gets its head', async () => {
    const heads: { delivery_id: string; event_id: string }[] = await ds.query(
      `SELECT h.delivery_id, d.event_id FROM ${SCHEMA}.delivery_heads h JOIN ${SCHEMA}.deliveries d ON d.id = h.delivery_id`,
    );
    expect(heads.map((h) => h.event_id).sort()).toEqual(oldEvents.map(([, e]) => e).sort());
  });

  it('when a delivery is recorded after the migration, then it takes the next position of its shop', async () => {
    const d = aDelivery(SHOP, 10);
    await ds.transaction((m) => record(m, d, NOW));
    expect((await feed(SHOP)).at(-1)).toEqual([4, d.eventId]);
    expect(await feed(OTHER)).toHaveLength(2);
  });

  it('when two deliveries of a shop are recorded at once, then the second waits for the first to commit, so no reader sees a later position before an earlier one', async () => {
    const start = (await feed(SHOP)).at(-1)![0];
    const first = ds.createQueryRunner();
    const second = ds.createQueryRunner();
    const begin = async (r: QueryRunner) => {
      await r.connect();
      await r.startTransaction();
    };
    await begin(first);
    await begin(second);
    try {
      const a = aDelivery(SHOP, 20);
      const b = aDelivery(SHOP, 21);
      await record(first.manager, a, NOW);
      let secondDone = false;
      const secondInsert = record(second.manager, b, NOW).then(() => (secondDone = true));
      await new Promise((r) => setTimeout(r, 300));
      expect(secondDone).toBe(false);
      expect(await feed(SHOP, start)).toEqual([]);
      // Another shop is not held up by this one.
      await ds.transaction((m) => record(m, aDelivery(OTHER, 22), NOW));

      await first.commitTransaction();
      expect(await feed(SHOP, start)).toEqual([[start + 1, a.eventId]]);
      await secondInsert;
      await second.commitTransaction();
      expect(await feed(SHOP, start)).toEqual([
        [start + 1, a.eventId],
        [start + 2, b.eventId],
      ]);
    } finally {
      if (first.isTransactionActive) await first.rollbackTransaction();
      if (second.isTransactionActive) await second.rollbackTransaction();
      await first.release();
      await second.release();
    }
  });
});
