import { randomUUID } from 'node:crypto';
import { LedgerCommandTypes, OrderStatusChanged, RefundReservation, Topics } from '@payments/contracts';
import { checkBooks } from '@payments/ledger-domain';
import { eventually } from '@payments/testing';
import { orderStatusChange, startTwoLedgers, TwoLedgers } from '../two-ledgers.spec-support';
import { SuspenseConversionSweeper } from './suspense-conversion.sweeper';

/**
 * Decision 304's parked credits against real Kafka and PostgreSQL: a credit whose suspense a
 * refund's hold took fully stays queued (parked) and is converted once the hold is voided; a
 * credit whose conversion fails is parked with its error while the rest of the batch converts.
 * The sweep runs only when the test calls it.
 */
describe('ledger: credits parked in suspense, never lost', () => {
  let two: TwoLedgers;
  beforeAll(async () => {
    two = await startTwoLedgers({ name: 'park', requester: 'orders', env: { LEDGER_RATE_CONVERSION_MS: '3600000' } });
  });
  afterAll(async () => {
    // Its pairs wait for a rate again in the next run.
    await two?.pg.query(`DELETE FROM ledger.rates WHERE source = 'operator:park-spec'`);
    await two?.stop();
  });

  const balances = async (shopId: string): Promise<Record<string, string>> => {
    const { rows } = await two.pg.query<{ kind: string; currency: string; balance: string }>(
      `SELECT kind, currency, trim_scale(balance)::text AS balance FROM ledger.accounts WHERE shop_id = $1 AND balance <> 0`,
      [shopId],
    );
    return Object.fromEntries(rows.map((r) => [`${r.kind}:${r.currency}`, r.balance]));
  };
  /** A completion of 100.00 CHF to a USDC balance, with no rate: it waits in suspense. */
  const waitingCredit = async (shop: string, order: string, tokenStandard = 'ERC20') => {
    const e = orderStatusChange(shop, order, {
      cost: { amount: '100.00', currency: 'CHF' },
      merchantBalance: { currency: 'USDC', tokenStandard },
    });
    await two.producer.send({
      topic: two.prefix + Topics.ordersEvents,
      messages: [{ key: (e.payload as OrderStatusChanged).orderId, value: JSON.stringify(e) }],
    });
    await eventually(async () => ((await balances(shop))['suspense:CHF'] === '100' ? true : undefined), 30_000);
  };
  const queued = async (order: string) =>
    (await two.pg.query(`SELECT parked FROM ledger.awaiting_rates WHERE order_id = $1`, [order])).rows;
  const sweep = () => two.ledgers[0].app.get(SuspenseConversionSweeper).sweep();
  const aRate = (quote: string) =>
    two.pg.query(
      `INSERT INTO ledger.rates (base, quote, rate, source, valid_from) VALUES ('CHF', $1, '1.08', 'operator:park-spec', now() - interval '1 minute')`,
      [quote],
    );

  it('when a refund hold took all of a waiting credit and is voided after the sweep, then the credit is converted', async () => {
    const shop = randomUUID();
    const order = randomUUID();
    await waitingCredit(shop, order);
    const refundId = randomUUID();
    const held = await two.requester.request<RefundReservation>(
      Topics.ledgerCommands,
      shop,
      LedgerCommandTypes.reserveRefund,
      { refundId, orderId: order, shopId: shop, amount: '100.00' },
    );
    expect(held).toMatchObject({ ok: true, result: { refundId, status: 'held' } });
    expect(await balances(shop)).toEqual({ 'reserved:CHF': '100' });
    await aRate('USDC-ERC20');

    await sweep();
    expect(await queued(order)).toEqual([{ parked: 'refund hold' }]);

    await two.requester.request(Topics.ledgerCommands, shop, LedgerCommandTypes.releaseRefund, {
      refundId,
      shopId: shop,
    });
    expect(await balances(shop)).toEqual({ 'suspense:CHF': '100' });
    expect(await queued(order)).toEqual([{ parked: null }]);

    await sweep();
    expect(await queued(order)).toEqual([]);
    expect(await balances(shop)).toEqual({ 'pending:USDC-ERC20': '108' });
  });

  it('when one waiting credit cannot be converted, then it is parked with its error and the others are converted', async () => {
    const [shopA, shopB] = [randomUUID(), randomUUID()];
    const [bad, good] = [randomUUID(), randomUUID()];
    await waitingCredit(shopA, bad, 'TRC20');
    await waitingCredit(shopB, good, 'TRC20');
    // The bad one is queued first and waits for a balance currency that is not in the registry.
    const unknown = `NOPE${Date.now()}`;
    await two.pg.query(`UPDATE ledger.awaiting_rates SET balance_currency = $2 WHERE order_id = $1`, [bad, unknown]);
    await aRate(unknown);
    await aRate('USDC-TRC20');

    await sweep();
    expect(await balances(shopB)).toEqual({ 'pending:USDC-TRC20': '108' });
    expect(await balances(shopA)).toEqual({ 'suspense:CHF': '100' });
    const [parked] = await queued(bad);
    expect(parked.parked).toMatch(/^conversion failed: order .+ no longer in the registry/);

    // Parked, it is not taken again.
    await sweep();
    expect(await queued(bad)).toEqual([parked]);
  });

  it('when money sits in a shop suspense with no credit of it queued, then the books check finds it', async () => {
    const shop = randomUUID();
    const order = randomUUID();
    await waitingCredit(shop, order, 'BEP20');
    const unqueued = async () =>
      (await checkBooks(async (sql, params) => (await two.pg.query(sql, params)).rows, 'ledger')).filter(
        (f) => f.check === 'suspense_unqueued',
      );
    expect(await unqueued()).toEqual([]);
    // What the sweep did before decision 304's parking: the row gone, the money still in suspense.
    const { rows } = await two.pg.query(`DELETE FROM ledger.awaiting_rates WHERE order_id = $1 RETURNING *`, [order]);
    expect(await unqueued()).toEqual([
      expect.objectContaining({
        subject: `account shop:${shop}:suspense:CHF`,
        detail: expect.stringMatching(/^100\.0* in suspense/),
      }),
    ]);
    const r = rows[0];
    await two.pg.query(
      `INSERT INTO ledger.awaiting_rates (transaction_id, shop_id, order_id, order_currency, balance_currency, amount, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [r.transaction_id, r.shop_id, r.order_id, r.order_currency, r.balance_currency, r.amount, r.created_at],
    );
    expect(await unqueued()).toEqual([]);
  });
});
