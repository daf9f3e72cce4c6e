import { randomUUID } from 'node:crypto';
import { BalanceChanged, envelope, Envelope, P2pStatusChanged, Topics } from '@payments/contracts';
import { eventually, TopicReader } from '@payments/testing';
import { orderStatusChange, startTwoLedgers, TwoLedgers } from '../two-ledgers.spec-support';

/**
 * Decision 313 against real Kafka and PostgreSQL, two ledger instances: every transaction that
 * moves a shop's available, pending or reserved publishes one balance event through the outbox,
 * keyed by the shop, with the three figures after it; a redelivered event publishes nothing again,
 * and a credit that only waits in suspense moves no figure and tells nothing.
 */
describe('ledger: balance events on ledger.events', () => {
  let two: TwoLedgers;
  let reader: TopicReader;

  beforeAll(async () => {
    two = await startTwoLedgers({ name: 'ldgev', requester: 'gateway', env: { LEDGER_SETTLEMENT_SWEEP_MS: '100' } });
    reader = await TopicReader.start([two.prefix + Topics.ledgerEvents]);
  });

  afterAll(async () => {
    await reader?.stop();
    await two?.stop();
  });

  const send = (topic: string, key: string, messages: Envelope[]) =>
    two.producer.send({
      topic: two.prefix + topic,
      messages: messages.map((e) => ({ key, value: JSON.stringify(e) })),
    });
  const completion = orderStatusChange;
  const eventsOf = (shopId: string) =>
    reader
      .on(two.prefix + Topics.ledgerEvents)
      .filter((m) => m.key === shopId)
      .map((m) => m.json as Envelope<BalanceChanged>);
  const figures = (e: Envelope<BalanceChanged>) => [
    e.payload.transaction.kind,
    e.payload.transaction.amount,
    e.payload.currency,
    e.payload.available,
    e.payload.pending,
    e.payload.reserved,
  ];

  it('when a credit is booked twice, settles and pays a P2P fee, then each step is one event of the shop with its figures after it', async () => {
    const shop = randomUUID();
    await two.pg.query(`INSERT INTO ledger.shop_settings (shop_id, settlement_delay_seconds) VALUES ($1, 0)`, [shop]);
    await two.pg.query(
      `INSERT INTO ledger.fee_schedules (shop_id, method, currency, fixed) VALUES ($1, 'p2p', 'USD', 1.25)`,
      [shop],
    );
    const order = randomUUID();
    const credit = completion(shop, order);
    // Redelivered: booked once, told once.
    await send(Topics.ordersEvents, order, [credit, credit]);
    // Waits in suspense (no EUR rate): no figure of the shop moves, nothing is told.
    await send(Topics.ordersEvents, randomUUID(), [
      completion(shop, randomUUID(), {
        cost: { amount: '5.00', currency: 'EUR' },
        merchantBalance: { currency: 'USD' },
      }),
    ]);
    await eventually(async () => (eventsOf(shop).length >= 2 ? true : undefined), 20_000, 'credit and settlement');
    const p2pId = randomUUID();
    await send(Topics.p2pEvents, p2pId, [
      envelope({
        type: 'p2p.status_changed',
        occurredAt: new Date(),
        payload: {
          p2pId,
          shopId: shop,
          merchantP2pId: 'p-1',
          sequence: 3,
          status: 'completed',
          previousStatus: 'in_progress',
          cost: { amount: '30.00', currency: 'USD' },
        } satisfies P2pStatusChanged,
      }),
    ]);
    await eventually(async () => (eventsOf(shop).length >= 3 ? true : undefined), 20_000, 'the P2P fee');
    await new Promise((r) => setTimeout(r, 1000));
    const events = eventsOf(shop);
    expect(events.map(figures)).toEqual([
      ['order_completed', '100', 'USD', '0', '100', '0'],
      ['settlement', '100', 'USD', '100', '0', '0'],
      ['p2p_fee', '-1.25', 'USD', '98.75', '0', '0'],
    ]);
    expect(events.map((e) => e.payload.shopId)).toEqual([shop, shop, shop]);
    expect(events[0].payload.transaction.source).toEqual({ type: 'order', id: order });
    expect(events[2].payload.transaction.source).toEqual({ type: 'p2p', id: p2pId });
    const { rows } = await two.pg.query(
      `SELECT id::text FROM ledger.transactions WHERE shop_id = $1 ORDER BY created_at`,
      [shop],
    );
    // The suspense credit is a transaction of the shop too, but moved none of the three figures.
    expect(rows).toHaveLength(4);
    expect(events.map((e) => e.payload.transaction.id).every((id) => rows.some((r) => r.id === id))).toBe(true);
  });
});
