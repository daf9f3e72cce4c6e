import { randomUUID } from 'node:crypto';
import { Consumer, Producer } from 'kafkajs';
import { Client } from 'pg';
import {
  envelope,
  LedgerCommandTypes,
  OrderStatusChanged,
  PayoutEventTypes,
  PayoutStatusChanged,
  Topics,
} from '@payments/contracts';
import { KafkaRequestClient } from '@payments/messaging';
import { eventually } from '@payments/testing';
import { checkBooks } from '@payments/ledger-domain';
import { startTwoLedgers, TwoLedgers } from '../two-ledgers.spec-support';

/**
 * Decision 277: a hold whose payout or refund never came to be (its requester crashed between the
 * hold and the insert) is voided once it is older than the bound, by either of two instances and
 * once; a hold whose payout exists stays.
 */
describe('ledger: orphan holds voided after a bounded time, by two instances', () => {
  const shop = randomUUID();
  let two: TwoLedgers;
  let prefix: string;
  let producer: Producer;
  let pg: Client;
  let requester: KafkaRequestClient;

  beforeAll(async () => {
    two = await startTwoLedgers({
      name: 'orph',
      requester: 'payouts',
      env: {
        LEDGER_SETTLEMENT_SWEEP_MS: '100',
        LEDGER_ORPHAN_SWEEP_MS: '100',
        LEDGER_ORPHAN_HOLD_AFTER_MS: '3000',
      },
    });
    ({ prefix, producer, pg, requester } = two);
  });

  afterAll(async () => {
    await two?.stop();
  });

  const send = (topic: string, key: string, type: string, payload: unknown) =>
    producer.send({
      topic: prefix + topic,
      messages: [{ key, value: JSON.stringify(envelope({ type, occurredAt: new Date(), payload })) }],
    });
  const balances = async () => {
    const { rows } = await pg.query<{ kind: string; balance: string }>(
      `SELECT kind, balance::text FROM ledger.accounts WHERE shop_id = $1 AND currency = 'USD'`,
      [shop],
    );
    return Object.fromEntries(rows.map((r) => [r.kind, Number(r.balance)]));
  };
  /** One more order of 100.00 USD completed and settled at once: answers it and the available after it. */
  const fund100 = async (merchantOrderId: string) => {
    await pg.query(
      `INSERT INTO ledger.shop_settings (shop_id, settlement_delay_seconds) VALUES ($1, 0) ON CONFLICT DO NOTHING`,
      [shop],
    );
    const orderId = randomUUID();
    const before = await balances();
    await send(Topics.ordersEvents, orderId, 'order.status_changed', {
      orderId,
      shopId: shop,
      merchantOrderId,
      sequence: 3,
      status: 'completed',
      previousStatus: 'in_progress',
      cost: { amount: '100.00', currency: 'USD' },
      provider: 'sandbox',
    } satisfies OrderStatusChanged);
    const funded = (before.available ?? 0) + 100;
    await eventually(async () => ((await balances()).available === funded ? true : undefined), 30_000, 'the 100.00');
    return { orderId, funded };
  };
  const reservePayout = (payoutId: string) =>
    requester.request(Topics.ledgerCommands, shop, LedgerCommandTypes.reservePayout, {
      payoutId,
      shopId: shop,
      provider: 'sandbox',
      method: 'card_payout',
      cost: { amount: '10.00', currency: 'USD' },
    });

  it('when a payout and a refund were held and never created, then both holds are voided once after the bound; a payout that exists keeps its hold', async () => {
    const { orderId } = await fund100('o-1');

    const [orphanPayout, livePayout, orphanRefund] = [randomUUID(), randomUUID(), randomUUID()];
    expect((await reservePayout(orphanPayout)).ok).toBe(true);
    expect((await reservePayout(livePayout)).ok).toBe(true);
    const refund = await requester.request(Topics.ledgerCommands, shop, LedgerCommandTypes.reserveRefund, {
      refundId: orphanRefund,
      orderId,
      shopId: shop,
      amount: '5.00',
    });
    expect(refund.ok).toBe(true);
    expect(await balances()).toMatchObject({ available: 75, reserved: 25 });
    // The live payout was created: its first event confirms its hold.
    await send(Topics.payoutsEvents, livePayout, PayoutEventTypes.statusChanged, {
      payoutId: livePayout,
      shopId: shop,
      merchantPayoutId: 'p-1',
      sequence: 1,
      status: 'registered',
      previousStatus: null,
      cost: { amount: '10.00', currency: 'USD' },
    } satisfies PayoutStatusChanged);

    await eventually(
      async () => {
        const b = await balances();
        return b.available === 90 && b.reserved === 10 ? b : undefined;
      },
      20_000,
      'the orphans voided',
    );
    await new Promise((r) => setTimeout(r, 500));
    const { rows } = await pg.query(
      `SELECT (SELECT status FROM ledger.holds WHERE payout_id = $1) AS orphan_payout,
              (SELECT status FROM ledger.holds WHERE payout_id = $2) AS live_payout,
              (SELECT status FROM ledger.refund_holds WHERE refund_id = $3) AS orphan_refund,
              (SELECT count(*)::int FROM ledger.transactions WHERE kind IN ('payout_voided', 'refund_voided')) AS voids`,
      [orphanPayout, livePayout, orphanRefund],
    );
    expect(rows[0]).toEqual({ orphan_payout: 'voided', live_payout: 'held', orphan_refund: 'voided', voids: 2 });
    expect(await balances()).toMatchObject({ available: 90, reserved: 10 });
    expect(await checkBooks(async (sql, params) => (await pg.query(sql, params)).rows, 'ledger')).toEqual([]);
  });

  it('when a payout completes after the sweep voided its hold (its events read late), then its completion books it from available, once', async () => {
    const { funded } = await fund100('o-2');
    const late = randomUUID();
    expect((await reservePayout(late)).ok).toBe(true);
    const holdOf = async () =>
      (await pg.query(`SELECT status FROM ledger.holds WHERE payout_id = $1`, [late])).rows[0]?.status;
    await eventually(async () => ((await holdOf()) === 'voided' ? true : undefined), 20_000, 'the hold voided');
    expect((await balances()).available).toBe(funded);

    const completed = (sequence: number): PayoutStatusChanged => ({
      payoutId: late,
      shopId: shop,
      merchantPayoutId: 'p-late',
      sequence,
      status: 'completed',
      previousStatus: 'in_progress',
      cost: { amount: '10.00', currency: 'USD' },
    });
    await send(Topics.payoutsEvents, late, PayoutEventTypes.statusChanged, completed(3));
    await eventually(async () => ((await holdOf()) === 'posted' ? true : undefined), 20_000, 'the late payout booked');
    // The same completion delivered again, as a new message: booked once all the same.
    await send(Topics.payoutsEvents, late, PayoutEventTypes.statusChanged, completed(3));
    await new Promise((r) => setTimeout(r, 1000));
    expect((await balances()).available).toBe(funded - 10);
    const { rows } = await pg.query(
      `SELECT count(*)::int AS n FROM ledger.transactions WHERE source_id = $1 AND kind = 'payout_posted'`,
      [late],
    );
    expect(rows[0].n).toBe(1);
    expect(await checkBooks(async (sql, params) => (await pg.query(sql, params)).rows, 'ledger')).toEqual([]);
  });
  it('when the events consumer is behind, then no hold whose events wait unread is voided; once read, the payout posts and the refund books against its hold', async () => {
    const { orderId, funded } = await fund100('o-3');

    // Both instances stop reading the two topics: a ledger behind on them (stopped, slow, lagging).
    const behind = [{ topic: prefix + Topics.payoutsEvents }, { topic: prefix + Topics.ordersEvents }];
    const consumers = two.ledgers.map((l) => l.transports.events.unwrap<{ consumer: Consumer }>().consumer);
    for (const c of consumers) c.pause(behind);
    const [payoutId, refundId] = [randomUUID(), randomUUID()];
    expect((await reservePayout(payoutId)).ok).toBe(true);
    const refund = await requester.request(Topics.ledgerCommands, shop, LedgerCommandTypes.reserveRefund, {
      refundId,
      orderId,
      shopId: shop,
      amount: '5.00',
    });
    expect(refund.ok).toBe(true);
    // Both came to be at once: their events are published, and wait unread.
    await send(Topics.payoutsEvents, payoutId, PayoutEventTypes.statusChanged, {
      payoutId,
      shopId: shop,
      merchantPayoutId: 'p-behind',
      sequence: 3,
      status: 'completed',
      previousStatus: 'in_progress',
      cost: { amount: '10.00', currency: 'USD' },
    } satisfies PayoutStatusChanged);
    await send(Topics.ordersEvents, orderId, 'order.status_changed', {
      orderId,
      shopId: shop,
      merchantOrderId: 'o-3',
      sequence: 4,
      status: 'partially_refunded',
      previousStatus: 'completed',
      cost: { amount: '100.00', currency: 'USD' },
      refund: { refundId, amount: '5.00' },
    } satisfies OrderStatusChanged);
    const holds = async () =>
      (
        await pg.query(
          `SELECT (SELECT status FROM ledger.holds WHERE payout_id = $1) AS payout,
                  (SELECT status FROM ledger.refund_holds WHERE refund_id = $2) AS refund`,
          [payoutId, refundId],
        )
      ).rows[0];

    // Twice the bound, the sweep running every 100 ms on both instances.
    await new Promise((r) => setTimeout(r, 6000));
    expect(await holds()).toEqual({ payout: 'held', refund: 'held' });

    for (const c of consumers) c.resume(behind);
    await eventually(
      async () => {
        const h = await holds();
        return h.payout === 'posted' && h.refund === 'posted' ? h : undefined;
      },
      20_000,
      'both booked against their holds',
    );
    const { rows } = await pg.query(`SELECT kind FROM ledger.transactions WHERE source_id IN ($1, $2) ORDER BY kind`, [
      payoutId,
      orderId,
    ]);
    // Nothing voided: each hold posted once, the refund's from its hold (a refund's are the order's).
    expect(rows.map((r) => r.kind)).toEqual([
      'order_completed',
      'order_refunded',
      'payout_posted',
      'payout_reserved',
      'refund_reserved',
    ]);
    expect((await balances()).available).toBe(funded - 15);
    expect(await checkBooks(async (sql, params) => (await pg.query(sql, params)).rows, 'ledger')).toEqual([]);
  });
});
