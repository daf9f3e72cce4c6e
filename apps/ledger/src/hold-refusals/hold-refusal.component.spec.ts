import { randomUUID } from 'node:crypto';
import { envelope, LedgerCommandTypes, Reply, ReservePayoutCommand, ReserveRefundCommand } from '@payments/contracts';
import { systemClock } from '@payments/platform';
import {
  aCompletion,
  aPayoutAsk,
  openTestBooks,
  testOrphanSweeper,
  testSweeper,
  TestBooks,
} from '../books/books.spec-support';
import { HoldRepository } from '../hold-payouts/hold.repository';
import { PayoutHolds } from '../hold-payouts/payout-holds';
import { ReservePayoutHandler } from '../hold-payouts/reserve-payout.handler';
import { ReserveRefundHandler } from '../hold-refunds/reserve-refund.handler';
import { OrphanHoldSweeper } from '../orphan-holds/orphan-hold.sweeper';
import { HoldRefusalRepository } from './hold-refusal.repository';

/**
 * Decision 354 against real PostgreSQL. The orders service asks for a refund's hold, and the
 * payouts service for a payout's, under the id of the command they handle; they ask again under
 * that id only when they handle the command again after a crash, and by then the shop's money may
 * have grown. That ask must get the refusal the merchant was given, or the refund or payout is made
 * after the merchant was told it was not, and made again when the merchant asks anew (the fault
 * suite saw a refund doubled and a hold nobody posts). The merchant's retry with the same key is a
 * new command: decided on the books as they are.
 */
describe('ledger: a command refused a hold stays refused, a new command is decided anew', () => {
  let t: TestBooks;
  let refusals: HoldRefusalRepository;
  let refunds: ReserveRefundHandler;
  let payouts: ReservePayoutHandler;
  let payoutHolds: HoldRepository;
  let sweeper: ReturnType<typeof testSweeper>;
  let orphans: OrphanHoldSweeper;

  beforeAll(async () => {
    t = await openTestBooks();
    const config = { schema: 'ledger' };
    refusals = new HoldRefusalRepository(config);
    refunds = new ReserveRefundHandler(t.ds, t.books, t.holds, t.refundHolds, t.awaiting, refusals, systemClock);
    payoutHolds = new HoldRepository(config);
    payouts = new ReservePayoutHandler(
      t.ds,
      t.books,
      payoutHolds,
      new PayoutHolds(t.books, payoutHolds, systemClock),
      refusals,
      systemClock,
    );
    sweeper = testSweeper(t);
    orphans = testOrphanSweeper(
      t,
      payoutHolds,
      new PayoutHolds(t.books, payoutHolds, systemClock),
      refusals,
      systemClock,
    );
  });

  afterAll(async () => {
    await t?.close();
  });

  const reserveRefund = (cmd: ReserveRefundCommand) =>
    refunds.reserve(envelope({ type: LedgerCommandTypes.reserveRefund, occurredAt: new Date(), payload: cmd }));
  const reservePayout = (cmd: ReservePayoutCommand) =>
    payouts.reserve(envelope({ type: LedgerCommandTypes.reservePayout, occurredAt: new Date(), payload: cmd }));
  /** A shop whose credits settle at once (a settlement delay of 0): available, so a hold can be made. */
  const settledShop = async () => {
    const shop = randomUUID();
    await t.ds.query(`INSERT INTO ledger.shop_settings (shop_id, settlement_delay_seconds) VALUES ($1, 0)`, [shop]);
    return shop;
  };
  /** An order of 100.00 USD completed, credited and settled (no fee schedule: all of it available). */
  const creditSettled = async (orderId: string, shopId: string) => {
    await t.ds.transaction((m) => t.booker.book(m, [aCompletion(shopId, { orderId })]));
    await sweeper.sweep();
  };
  const refundHoldsOf = async (orderId: string) =>
    (
      await t.ds.query(`SELECT refund_id FROM ledger.refund_holds WHERE order_id = $1 ORDER BY refund_id`, [orderId])
    ).map((r: { refund_id: string }) => r.refund_id);
  const payoutHoldsOf = async (shopId: string) =>
    (await t.ds.query(`SELECT payout_id FROM ledger.holds WHERE shop_id = $1`, [shopId])).map(
      (r: { payout_id: string }) => r.payout_id,
    );
  const refusalsOf = async (id: string) =>
    (await t.ds.query(`SELECT held_kind FROM ledger.hold_refusals WHERE held_id = $1`, [id])).map(
      (r: { held_kind: string }) => r.held_kind,
    );
  const codeOf = (reply: Reply<unknown>) => (reply.ok ? 'ok' : String(reply.error.extensions?.statusCode));

  describe('refunds', () => {
    it('when a command refused for want of a credit asks again once the credit is booked, then it is refused again and nothing is held', async () => {
      const shopId = await settledShop();
      const orderId = randomUUID();
      const cmd = { refundId: randomUUID(), orderId, shopId, amount: '10.00', attemptId: randomUUID() };
      const before = await reserveRefund(cmd);
      expect(codeOf(before)).toBe('1-06-03');
      await creditSettled(orderId, shopId);

      const again = await reserveRefund(cmd);
      // The first answer, with its reason: what the merchant was told stands.
      expect(again).toEqual(before);
      expect(await refundHoldsOf(orderId)).toEqual([]);
      expect(await refusalsOf(cmd.refundId)).toEqual(['refund']);
    });

    it("when the merchant's retry with the same key comes as a new command once the credit is booked, then it is held, and the first command asked again keeps its refusal", async () => {
      const shopId = await settledShop();
      const orderId = randomUUID();
      const refundId = randomUUID();
      const first = { refundId, orderId, shopId, amount: '10.00', attemptId: randomUUID() };
      const refused = await reserveRefund(first);
      expect(codeOf(refused)).toBe('1-06-03');
      await creditSettled(orderId, shopId);

      const retry = await reserveRefund({ ...first, attemptId: randomUUID() });
      expect({ code: codeOf(retry), holds: await refundHoldsOf(orderId) }).toEqual({ code: 'ok', holds: [refundId] });
      // The first command handled again after the retry was held: its own answer, the one hold.
      expect(await reserveRefund(first)).toEqual(refused);
      expect(await refundHoldsOf(orderId)).toEqual([refundId]);
    });

    it('when a command that was held asks again, then it gets the same hold and the refund is held once', async () => {
      const shopId = await settledShop();
      const orderId = randomUUID();
      await creditSettled(orderId, shopId);
      const cmd = { refundId: randomUUID(), orderId, shopId, amount: '10.00', attemptId: randomUUID() };
      const first = await reserveRefund(cmd);
      const again = await reserveRefund(cmd);
      expect({ first: codeOf(first), again }).toEqual({ first: 'ok', again: first });
      expect(await refundHoldsOf(orderId)).toEqual([cmd.refundId]);
    });

    it('when a refund is refused for want of balance, then the same command stays refused after the balance grows', async () => {
      const shopId = await settledShop();
      const orderId = randomUUID();
      await creditSettled(orderId, shopId);
      const held = { refundId: randomUUID(), orderId, shopId, amount: '60.00', attemptId: randomUUID() };
      expect(codeOf(await reserveRefund(held))).toBe('ok');
      // 40.00 left: a second refund of 60.00 is not covered.
      const cmd = { refundId: randomUUID(), orderId, shopId, amount: '60.00', attemptId: randomUUID() };
      const before = await reserveRefund(cmd);
      expect(codeOf(before)).toBe('1-06-03');
      // A second payment of the shop makes the balance cover it.
      await creditSettled(randomUUID(), shopId);
      expect(await reserveRefund(cmd)).toEqual(before);
      expect(await refundHoldsOf(orderId)).toEqual([held.refundId]);
    });

    it("when a refund's lock is held elsewhere, then its ask waits for it, and is decided on the books as the lock's holder left them", async () => {
      const shopId = await settledShop();
      const orderId = randomUUID();
      const cmd = { refundId: randomUUID(), orderId, shopId, amount: '10.00', attemptId: randomUUID() };
      let asked: Promise<Reply<unknown>> | undefined;
      await t.ds.transaction(async (m) => {
        await refusals.lock(m, 'refund', cmd.refundId);
        asked = reserveRefund(cmd);
        // Booked while the ask waits: without the lock it would have been refused before this.
        await creditSettled(orderId, shopId);
      });
      expect(codeOf(await asked!)).toBe('ok');
      expect(await refundHoldsOf(orderId)).toEqual([cmd.refundId]);
    });

    it('when an ask comes without an attempt id (an orders service from before decision 354), then it is decided on the books as they are and nothing is recorded', async () => {
      const shopId = await settledShop();
      const orderId = randomUUID();
      const cmd = { refundId: randomUUID(), orderId, shopId, amount: '10.00' };
      expect(codeOf(await reserveRefund(cmd))).toBe('1-06-03');
      expect(await refusalsOf(cmd.refundId)).toEqual([]);
      await creditSettled(orderId, shopId);
      expect(codeOf(await reserveRefund(cmd))).toBe('ok');
    });
  });

  describe('payouts', () => {
    it('when a command refused for want of balance asks again once the balance covers it, then it is refused again and nothing is held', async () => {
      const shopId = await settledShop();
      await creditSettled(randomUUID(), shopId);
      const cmd = aPayoutAsk(shopId, '150.00');
      const before = await reservePayout(cmd);
      expect(codeOf(before)).toBe('1-06-02');
      await creditSettled(randomUUID(), shopId);

      expect(await reservePayout(cmd)).toEqual(before);
      expect(await payoutHoldsOf(shopId)).toEqual([]);
      expect(await refusalsOf(cmd.payoutId)).toEqual(['payout']);
    });

    it("when the merchant's retry with the same key comes as a new command, then it is decided on the balance as it is now", async () => {
      const shopId = await settledShop();
      await creditSettled(randomUUID(), shopId);
      const cmd = aPayoutAsk(shopId, '150.00');
      expect(codeOf(await reservePayout(cmd))).toBe('1-06-02');
      await creditSettled(randomUUID(), shopId);

      const retry = await reservePayout({ ...cmd, attemptId: randomUUID() });
      expect({ code: codeOf(retry), holds: await payoutHoldsOf(shopId) }).toEqual({
        code: 'ok',
        holds: [cmd.payoutId],
      });
    });

    it('when a payout is refused for a fee above its amount and the fee schedule changes, then the same command stays refused and a new one is held', async () => {
      const shopId = await settledShop();
      await creditSettled(randomUUID(), shopId);
      await t.ds.query(
        `INSERT INTO ledger.fee_schedules (shop_id, method, currency, fixed) VALUES ($1, 'card', 'USD', 60)`,
        [shopId],
      );
      const cmd = aPayoutAsk(shopId, '50.00');
      const before = await reservePayout(cmd);
      expect(before).toMatchObject({ ok: false, error: { code: 'unprocessable' } });
      // An operator takes the fee off: the merchant was told this payout cannot be made.
      await t.ds.query(`DELETE FROM ledger.fee_schedules WHERE shop_id = $1`, [shopId]);

      expect(await reservePayout(cmd)).toEqual(before);
      expect(await payoutHoldsOf(shopId)).toEqual([]);
      expect(codeOf(await reservePayout({ ...cmd, attemptId: randomUUID() }))).toBe('ok');
    });

    it("when a payout's lock is held elsewhere, then its ask waits for it, and is decided on the balance the lock's holder left", async () => {
      const shopId = await settledShop();
      await creditSettled(randomUUID(), shopId);
      const cmd = aPayoutAsk(shopId, '150.00');
      let asked: Promise<Reply<unknown>> | undefined;
      await t.ds.transaction(async (m) => {
        await refusals.lock(m, 'payout', cmd.payoutId);
        asked = reservePayout(cmd);
        // Booked while the ask waits: without the lock it would have been refused before this.
        await creditSettled(randomUUID(), shopId);
      });
      expect(codeOf(await asked!)).toBe('ok');
      expect(await payoutHoldsOf(shopId)).toEqual([cmd.payoutId]);
    });

    it('when an ask comes without an attempt id (a payouts service from before decision 354), then nothing is recorded and it is decided on the balance as it is', async () => {
      const shopId = await settledShop();
      await creditSettled(randomUUID(), shopId);
      const { attemptId: _none, ...cmd } = aPayoutAsk(shopId, '150.00');
      expect(codeOf(await reservePayout(cmd))).toBe('1-06-02');
      expect(await refusalsOf(cmd.payoutId)).toEqual([]);
      await creditSettled(randomUUID(), shopId);
      expect(codeOf(await reservePayout(cmd))).toBe('ok');
    });
  });

  describe('kept for their time', () => {
    it('when a refusal is older than the time refusals are kept, then a run of the orphan sweep purges it and keeps the recent ones', async () => {
      const shopId = await settledShop();
      const [old, recent] = [aPayoutAsk(shopId, '10.00'), aPayoutAsk(shopId, '10.00')];
      expect([codeOf(await reservePayout(old)), codeOf(await reservePayout(recent))]).toEqual(['1-06-02', '1-06-02']);
      await t.ds.query(
        `UPDATE ledger.hold_refusals SET refused_at = now() - interval '8 days 1 minute' WHERE held_id = $1`,
        [old.payoutId],
      );

      // The orphan sweep's run purges them.
      await orphans.sweep();
      expect({ old: await refusalsOf(old.payoutId), recent: await refusalsOf(recent.payoutId) }).toEqual({
        old: [],
        recent: ['payout'],
      });
      expect(await orphans.purgeRefusals()).toBe(0);
    });
  });
});
