import { randomUUID } from 'node:crypto';
import { envelope, LedgerCommandTypes, Reply, ReserveRefundCommand } from '@payments/contracts';
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
 * Decision 354 against real PostgreSQL. The orders service asks for a refund's hold under the id
 * of its command; it asks again under that id only when it handles the command again after a
 * crash, and by then the order's credit may be booked. That ask must get the refusal the merchant
 * was given, or the refund is made after the merchant was told it was not, and made again under
 * the merchant's new key (the fault suite saw both: a refund doubled, a hold nobody posts). The
 * merchant's retry with the same key is a new command: decided on the books as they are.
 */
describe('ledger: a command refused a refund stays refused, a new command is decided anew', () => {
  let t: TestBooks;
  let handler: ReserveRefundHandler;
  let sweeper: SettlementSweeper;

  beforeAll(async () => {
    t = await openTestBooks();
    handler = new ReserveRefundHandler(t.ds, t.books, t.holds, t.refundHolds, t.awaiting, systemClock);
    sweeper = new SettlementSweeper(
      t.ds,
      t.books,
      { settlementSweepMs: 60_000, settlementBatch: 200 } as LedgerConfig,
      systemClock,
    );
  });

  afterAll(async () => {
    await t?.close();
  });

  const reserve = (cmd: ReserveRefundCommand) =>
    handler.reserve(envelope({ type: LedgerCommandTypes.reserveRefund, occurredAt: new Date(), payload: cmd }));
  /** A shop whose credits settle at once (a settlement delay of 0): available, so a refund can be held. */
  const settledShop = async () => {
    const shop = randomUUID();
    await t.ds.query(`INSERT INTO ledger.shop_settings (shop_id, settlement_delay_seconds) VALUES ($1, 0)`, [shop]);
    return shop;
  };
  const creditSettled = async (orderId: string, shopId: string) => {
    await t.ds.transaction((m) =>
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
    await sweeper.sweep();
  };
  const holdsOf = async (orderId: string) =>
    (
      await t.ds.query(`SELECT refund_id FROM ledger.refund_holds WHERE order_id = $1 ORDER BY refund_id`, [orderId])
    ).map((r: { refund_id: string }) => r.refund_id);
  const refusalsOf = async (refundId: string) =>
    Number(
      (await t.ds.query(`SELECT count(*)::int AS n FROM ledger.refund_refusals WHERE refund_id = $1`, [refundId]))[0].n,
    );
  const codeOf = (reply: Reply<unknown>) => (reply.ok ? 'ok' : String(reply.error.extensions?.statusCode));

  it('when a command refused for want of a credit asks again once the credit is booked, then it is refused again and nothing is held', async () => {
    const shopId = await settledShop();
    const orderId = randomUUID();
    const cmd = { refundId: randomUUID(), orderId, shopId, amount: '10.00', attemptId: randomUUID() };
    const before = await reserve(cmd);
    expect(codeOf(before)).toBe('1-06-03');
    await creditSettled(orderId, shopId);

    const again = await reserve(cmd);
    // The first answer, with its reason: what the merchant was told stands.
    expect(again).toEqual(before);
    expect(await holdsOf(orderId)).toEqual([]);
  });

  it("when the merchant's retry with the same key comes as a new command once the credit is booked, then it is held", async () => {
    const shopId = await settledShop();
    const orderId = randomUUID();
    const refundId = randomUUID();
    const first = await reserve({ refundId, orderId, shopId, amount: '10.00', attemptId: randomUUID() });
    expect(codeOf(first)).toBe('1-06-03');
    await creditSettled(orderId, shopId);

    const retry = await reserve({ refundId, orderId, shopId, amount: '10.00', attemptId: randomUUID() });
    expect({ code: codeOf(retry), holds: await holdsOf(orderId) }).toEqual({ code: 'ok', holds: [refundId] });
    // The first command handled again now finds nothing changed for it, and holds nothing more.
    expect(await refusalsOf(refundId)).toBe(1);
  });

  it('when a command that was held asks again, then it gets the same hold and the refund is held once', async () => {
    const shopId = await settledShop();
    const orderId = randomUUID();
    await creditSettled(orderId, shopId);
    const cmd = { refundId: randomUUID(), orderId, shopId, amount: '10.00', attemptId: randomUUID() };
    const first = await reserve(cmd);
    const again = await reserve(cmd);
    expect({ first: codeOf(first), again }).toEqual({ first: 'ok', again: first });
    expect(await holdsOf(orderId)).toEqual([cmd.refundId]);
  });

  it('when a refund is refused for want of balance, then the refusal is recorded too, and the same command stays refused after the balance grows', async () => {
    const shopId = await settledShop();
    const orderId = randomUUID();
    await creditSettled(orderId, shopId);
    const held = { refundId: randomUUID(), orderId, shopId, amount: '60.00', attemptId: randomUUID() };
    expect(codeOf(await reserve(held))).toBe('ok');
    // 40.00 left: a second refund of 60.00 is not covered.
    const cmd = { refundId: randomUUID(), orderId, shopId, amount: '60.00', attemptId: randomUUID() };
    const before = await reserve(cmd);
    expect(codeOf(before)).toBe('1-06-03');
    // A second payment of the shop makes the balance cover it.
    await creditSettled(randomUUID(), shopId);
    expect(await reserve(cmd)).toEqual(before);
    expect(await holdsOf(orderId)).toEqual([held.refundId]);
  });

  it('when two asks of one command race, then they are decided one after the other with one answer and one record', async () => {
    const cmd = {
      refundId: randomUUID(),
      orderId: randomUUID(),
      shopId: randomUUID(),
      amount: '10.00',
      attemptId: randomUUID(),
    };
    const [a, b] = await Promise.all([reserve(cmd), reserve(cmd)]);
    expect({ a: codeOf(a), same: a }).toEqual({ a: '1-06-03', same: b });
    expect(await refusalsOf(cmd.refundId)).toBe(1);
  });

  it('when an ask comes without an attempt id (an orders service from before decision 354), then it is decided on the books as they are and nothing is recorded', async () => {
    const shopId = await settledShop();
    const orderId = randomUUID();
    const cmd = { refundId: randomUUID(), orderId, shopId, amount: '10.00' };
    expect(codeOf(await reserve(cmd))).toBe('1-06-03');
    expect(await refusalsOf(cmd.refundId)).toBe(0);
    await creditSettled(orderId, shopId);
    expect(codeOf(await reserve(cmd))).toBe('ok');
  });
});
