import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { BalanceChanged } from '@payments/contracts';
import { BalanceBody, toBalanceBody, toCallbackBody } from '@payments/merchant-callbacks-domain';
import { Inbox } from '@payments/messaging';
import { openServiceDatabase } from '@payments/platform';
// Test infrastructure only; the boundary rule has no override for spec files yet.
import { createTestDatabase } from '@payments/testing';
import { MerchantCallbacksConfig } from '../config';
import { DeliveryRepository } from '../deliver/delivery.repository';
import { FeedRepository } from '../read-feed/feed.repository';
import { MERCHANT_CALLBACKS_MIGRATIONS } from '../migrations';

const SCHEMA = 'merchant_callbacks';
const NOW = new Date('2026-11-27T12:00:00Z');

function aBalanceEvent(shopId: string, available: string): BalanceBody {
  const id = randomUUID();
  const change: BalanceChanged = {
    shopId,
    currency: 'USDT-TRC20',
    available,
    pending: '0',
    reserved: '0',
    transaction: { id, kind: 'settlement', source: { type: 'order', id: randomUUID() }, amount: available },
  };
  return toBalanceBody(randomUUID(), NOW.toISOString(), change);
}

/**
 * Decision 314 against PostgreSQL: balance events take their positions from the shop's one feed
 * counter, beside its deliveries, so the feed is one order across both; each shop sees its own
 * only; a redelivered event is recorded once; they are purged with the deliveries.
 */
describe('balance events on the events feed', () => {
  let db: { url: string; drop(): Promise<void> };
  let ds: DataSource;
  let inbox: Inbox;
  let deliveries: DeliveryRepository;
  let feeds: FeedRepository;
  const shop = randomUUID();
  const other = randomUUID();

  const recordBalance = (events: BalanceBody[]) =>
    feeds.insertEvents(
      events,
      inbox.cte(
        'ib',
        events.map((e) => ({ eventId: e.eventId })),
      ),
      NOW,
    );
  const recordDelivery = async (shopId: string) => {
    const eventId = randomUUID();
    const body = toCallbackBody(eventId, NOW.toISOString(), {
      type: 'order.status_changed',
      objectId: randomUUID(),
      shopId,
      merchantReference: 'm-1',
      sequence: 1,
      status: 'registered',
      previousStatus: null,
      cost: { amount: '1.00', currency: 'USD' },
    });
    await deliveries.insertFresh([{ eventId, body, urlOverride: null }], inbox.cte('ib', [{ eventId }]), NOW);
    return eventId;
  };
  const feed = async (shopId: string, objectType?: 'balance' | 'order') =>
    (await feeds.feed({ shopId, afterPosition: 0, limit: 100, ...(objectType ? { objectType } : {}) })).rows.map(
      (r) => [Number(r.feed_position), r.type, r.event_id],
    );

  beforeAll(async () => {
    db = await createTestDatabase();
    ds = await openServiceDatabase({
      url: db.url,
      schema: SCHEMA,
      entities: [],
      migrations: MERCHANT_CALLBACKS_MIGRATIONS,
    });
    const config = { schema: SCHEMA } as MerchantCallbacksConfig;
    deliveries = new DeliveryRepository(ds, config);
    feeds = new FeedRepository(ds, config);
    inbox = new Inbox(ds, SCHEMA, 'merchant-callbacks');
  });

  afterAll(async () => {
    if (ds?.isInitialized) await ds.destroy();
    await db?.drop();
  });

  it('when deliveries and balance events of two shops are recorded in turn, then each shop reads its own in one order of positions', async () => {
    const first = await recordDelivery(shop);
    const [a, b, c] = [aBalanceEvent(shop, '1'), aBalanceEvent(other, '5'), aBalanceEvent(shop, '2')];
    expect(await recordBalance([a, b, c])).toEqual(new Set([a.eventId, b.eventId, c.eventId]));
    const last = await recordDelivery(shop);
    expect(await feed(shop)).toEqual([
      [1, 'order.status_changed', first],
      [2, 'balance.updated', a.eventId],
      [3, 'balance.updated', c.eventId],
      [4, 'order.status_changed', last],
    ]);
    expect(await feed(other)).toEqual([[1, 'balance.updated', b.eventId]]);
    expect(await feed(shop, 'balance')).toEqual([
      [2, 'balance.updated', a.eventId],
      [3, 'balance.updated', c.eventId],
    ]);
    const [row] = (await feeds.feed({ shopId: other, afterPosition: 0, limit: 1 })).rows;
    expect(JSON.parse(row.body)).toEqual(b);
    expect([row.object_type, row.object_id, row.sequence]).toEqual(['balance', b.objectId, 1]);
  });

  it('when a balance event comes again, then it is not recorded a second time and takes no position', async () => {
    const e = aBalanceEvent(other, '7');
    expect(await recordBalance([e])).toEqual(new Set([e.eventId]));
    expect(await recordBalance([e])).toEqual(new Set());
    expect((await feed(other)).map(([p]) => p)).toEqual([1, 2]);
    // Nothing of it is a delivery: no callback is ever sent for it.
    const { n } = (
      await ds.query(`SELECT count(*)::int AS n FROM ${SCHEMA}.deliveries WHERE shop_id = $1`, [other])
    )[0];
    expect(n).toBe(0);
  });

  it('when the retention has passed, then balance events are purged with the deliveries', async () => {
    const later = new Date(NOW.getTime() + 1000);
    await ds.query(`UPDATE ${SCHEMA}.deliveries SET status = 'delivered'`);
    const purged = await feeds.purge(later, 1000);
    expect(purged).toBe(6);
    expect(await feed(shop)).toEqual([]);
    expect(await feed(other)).toEqual([]);
  });
});
