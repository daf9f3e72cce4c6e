import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { Envelope, LedgerCommandTypes } from '@payments/contracts';
import { ledgerCurrency, LedgerCurrency } from '@payments/ledger-domain';
import { amountOf } from '@payments/money';
import { systemClock } from '@payments/platform';
import { openTestBooks, TestBooks } from '../books/books.spec-support';
import { LedgerConfig } from '../config';
import { SettlementSweeper } from '../settle/settlement.sweeper';
import { ReserveRefundHandler } from './reserve-refund.handler';

const USD = ((): LedgerCurrency => {
  const c = ledgerCurrency('USD');
  if (c.kind !== 'ok') throw new Error(c.reason);
  return c.currency;
})();

/**
 * Decision 354 against real PostgreSQL: the orders service asks for a refund's hold again only
 * when its command is handled again after a crash, and by then the order's credit may be booked.
 * The second ask must get the refusal the merchant was given, or the refund is made after the
 * merchant was told it was not, and made again under the merchant's new key (the fault suite saw
 * both: a refund doubled, a hold nobody posts).
 */
describe('ledger: a refund refused stays refused', () => {
  let t: TestBooks;
  let ds: DataSource;
  let handler: ReserveRefundHandler;
  let sweeper: SettlementSweeper;

  beforeAll(async () => {
    t = await openTestBooks();
    ds = t.ds;
    handler = new ReserveRefundHandler(ds, t.books, t.holds, t.refundHolds, t.awaiting, systemClock);
    sweeper = new SettlementSweeper(
      ds,
      t.books,
      { settlementSweepMs: 60_000, settlementBatch: 200 } as LedgerConfig,
      systemClock,
    );
  });

  afterAll(async () => {
    await t?.close();
  });

  const reserve = (refundId: string, orderId: string, shopId: string, amount = '10.00') =>
    handler.reserve({
      eventId: randomUUID(),
      type: LedgerCommandTypes.reserveRefund,
      version: 1,
      occurredAt: new Date().toISOString(),
      correlationId: randomUUID(),
      causationId: null,
      payload: { refundId, orderId, shopId, amount },
    } as Envelope);
  const credit = (orderId: string, shopId: string) =>
    ds.transaction((m) =>
      t.booker.book(m, [
        {
          eventId: randomUUID(),
          occurredAt: new Date(),
          kind: 'completed',
          orderId,
          shopId,
          method: 'card',
          provider: 'sandbox',
          orderCurrency: USD,
          balanceCurrency: USD,
          amount: amountOf('100.00'),
        },
      ]),
    );
  /** The shop's credits settled at once (a settlement delay of 0): available, so a refund can be held. */
  const settledShop = async () => {
    const shop = randomUUID();
    await ds.query(`INSERT INTO ledger.shop_settings (shop_id, settlement_delay_seconds) VALUES ($1, 0)`, [shop]);
    return shop;
  };
  const holdsOf = async (orderId: string) =>
    (await ds.query(`SELECT refund_id FROM ledger.refund_holds WHERE order_id = $1 ORDER BY refund_id`, [orderId])).map(
      (r: { refund_id: string }) => r.refund_id,
    );
  const codeOf = (reply: { ok: boolean; error?: { extensions?: Record<string, unknown> } }) =>
    reply.ok ? 'ok' : String(reply.error?.extensions?.statusCode ?? reply.error?.extensions?.code ?? 'error');

  it('when a refund refused for want of a credit is asked again once the credit is booked, then it is refused again and holds nothing', async () => {
    const shop = await settledShop();
    const order = randomUUID();
    const first = randomUUID();
    const before = await reserve(first, order, shop);
    expect(codeOf(before)).toBe('1-06-03');
    await credit(order, shop);
    await sweeper.sweep();
    const again = await reserve(first, order, shop);
    // The same answer as the first, with the first one's reason: the merchant's key keeps it.
    expect(again).toEqual(before);
    expect(await holdsOf(order)).toEqual([]);
    // The merchant's new key is a new refund: decided on the books as they are now.
    const second = randomUUID();
    const now = await reserve(second, order, shop);
    expect({ code: codeOf(now), holds: await holdsOf(order) }).toEqual({ code: 'ok', holds: [second] });
  });

  it('when asked again for a refund it held, then it answers the same hold and holds it once', async () => {
    const shop = await settledShop();
    const order = randomUUID();
    await credit(order, shop);
    await sweeper.sweep();
    const refund = randomUUID();
    const first = await reserve(refund, order, shop);
    const again = await reserve(refund, order, shop);
    expect({ first: codeOf(first), again }).toEqual({ first: 'ok', again: first });
    expect(await holdsOf(order)).toEqual([refund]);
  });

  it('when two asks of one refund race, then they are decided one after the other with one answer', async () => {
    const shop = randomUUID();
    const order = randomUUID();
    const refund = randomUUID();
    const [a, b] = await Promise.all([reserve(refund, order, shop), reserve(refund, order, shop)]);
    expect(a).toEqual(b);
    expect(a.ok).toBe(false);
    expect(
      Number((await ds.query(`SELECT count(*) AS n FROM ledger.refund_refusals WHERE refund_id = $1`, [refund]))[0].n),
    ).toBe(1);
  });
});
