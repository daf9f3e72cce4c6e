import { randomUUID } from 'node:crypto';
import { envelope, LedgerCommandTypes, Reply, ReservePayoutCommand, ReserveRefundCommand } from '@payments/contracts';
import { checkBooks } from '@payments/ledger-domain';
import { amountOf } from '@payments/money';
import { eventually } from '@payments/testing';
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
import { HoldRefusalRepository } from '../hold-refusals/hold-refusal.repository';
import { OrphanHoldSweeper } from './orphan-hold.sweeper';

/**
 * Decision 355 against real PostgreSQL. A hold voided by the orphan sweep (its requester crashed
 * before the payout or refund was inserted, or a payout's events were not read in time) holds
 * nothing. The merchant's retry under the same key asks for the same payout or refund again: it
 * must be held anew from the balance as it is, or refused, never answered with the voided hold
 * (which let the payout be sent with nothing reserved, and its completion book nothing). And a
 * payout completed after its hold was voided still left the shop: it is booked from the balance.
 */
describe('ledger: a voided hold asked for again is held anew; a payout completed after its void is booked', () => {
  let t: TestBooks;
  let payoutHolds: PayoutHolds;
  let refunds: ReserveRefundHandler;
  let payouts: ReservePayoutHandler;
  let orphans: OrphanHoldSweeper;
  let settle: ReturnType<typeof testSweeper>;
  let refusals: HoldRefusalRepository;
  let payoutHoldRows: HoldRepository;

  beforeAll(async () => {
    t = await openTestBooks();
    const config = { schema: 'ledger' };
    refusals = new HoldRefusalRepository(config);
    payoutHoldRows = new HoldRepository(config);
    payoutHolds = new PayoutHolds(t.books, payoutHoldRows, systemClock);
    refunds = new ReserveRefundHandler(t.ds, t.books, t.holds, t.refundHolds, t.awaiting, refusals, systemClock);
    payouts = new ReservePayoutHandler(t.ds, t.books, payoutHoldRows, payoutHolds, refusals, systemClock);
    // The sweep run by hand, an hour ahead: every open hold is older than its 15 minutes.
    orphans = testOrphanSweeper(t, payoutHoldRows, payoutHolds, refusals, {
      now: () => new Date(Date.now() + 3_600_000),
    });
    settle = testSweeper(t);
  });

  afterAll(async () => {
    await t?.close();
  });

  const codeOf = (reply: Reply<unknown>) => (reply.ok ? 'ok' : String(reply.error.extensions?.statusCode));
  /** A payout's or a refund's hold asked for, as the payouts or orders service's command asks. */
  const askPayout = (cmd: ReservePayoutCommand) =>
    payouts.reserve(envelope({ type: LedgerCommandTypes.reservePayout, occurredAt: new Date(), payload: cmd }));
  const askRefund = (cmd: ReserveRefundCommand) =>
    refunds.reserve(envelope({ type: LedgerCommandTypes.reserveRefund, occurredAt: new Date(), payload: cmd }));
  /** A shop with one order of 100.00 USD credited and settled at once: 100.00 available. */
  const shopWith100 = async () => {
    const shopId = randomUUID();
    const orderId = randomUUID();
    await t.ds.query(`INSERT INTO ledger.shop_settings (shop_id, settlement_delay_seconds) VALUES ($1, 0)`, [shopId]);
    await t.ds.transaction((m) => t.booker.book(m, [aCompletion(shopId, { orderId })]));
    await settle.sweep();
    return { shopId, orderId };
  };
  const balances = async (shopId: string) => {
    const rows: { kind: string; balance: string }[] = await t.ds.query(
      `SELECT kind, balance::text FROM ledger.accounts WHERE shop_id = $1 AND currency = 'USD'`,
      [shopId],
    );
    return Object.fromEntries(rows.map((r) => [r.kind, Number(r.balance)]));
  };
  /** The transactions whose key names a payout or refund, in the order they were posted: kind and key. */
  const bookedFor = async (sourceId: string, kinds: string[]) =>
    (
      await t.ds.query(
        `SELECT t.kind, t.idempotency_key FROM ledger.transactions t JOIN ledger.postings p ON p.transaction_id = t.id
          WHERE t.idempotency_key LIKE '%' || $1 || '%' AND t.kind = ANY($2::text[])
          GROUP BY t.id ORDER BY min(p.id)`,
        [sourceId, kinds],
      )
    ).map((r: { kind: string; idempotency_key: string }) => `${r.kind} ${r.idempotency_key}`);
  /** A session of this test's database waits for a row another transaction locked. */
  const waiting = async () =>
    (
      await t.ds.query(
        `SELECT 1 FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
          WHERE NOT l.granted AND l.locktype = 'transactionid' AND a.datname = current_database()`,
      )
    ).length > 0;
  const booksClean = async () =>
    expect(await checkBooks((sql, params) => t.ds.query(sql, params), 'ledger')).toEqual([]);

  /** Held, swept, held anew, swept again: the second void posts under its own key and gives the money back. */
  const voidedTwice = async (
    kind: 'payout' | 'refund',
    id: string,
    shopId: string,
    ask: (attemptId: string) => Promise<Reply<unknown>>,
    holdOf: (id: string) => Promise<unknown>,
  ) => {
    expect(codeOf(await ask(randomUUID()))).toBe('ok');
    await orphans.sweep();
    expect(codeOf(await ask(randomUUID()))).toBe('ok');
    await orphans.sweep();
    expect({ hold: await holdOf(id), balances: await balances(shopId) }).toMatchObject({
      hold: { status: 'voided', generation: 2 },
      balances: { available: 100, reserved: 0 },
    });
    expect(await bookedFor(id, [`${kind}_voided`])).toEqual([
      `${kind}_voided ${kind}:${id}:voided`,
      `${kind}_voided ${kind}:${id}:voided:2`,
    ]);
    await booksClean();
  };

  describe('payouts', () => {
    const reserve = askPayout;
    const holdOf = async (payoutId: string) =>
      (
        await t.ds.query(`SELECT status, generation, amount::float AS amount FROM ledger.holds WHERE payout_id = $1`, [
          payoutId,
        ])
      )[0];
    const kinds = ['payout_reserved', 'payout_posted', 'payout_voided'];

    it("when a payout's hold was voided as an orphan and the merchant's retry asks for it again, then it is held anew, and its completion posts that hold", async () => {
      const { shopId } = await shopWith100();
      const first = aPayoutAsk(shopId, '30.00');
      expect(codeOf(await reserve(first))).toBe('ok');
      await orphans.sweep();
      expect({ hold: await holdOf(first.payoutId), balances: await balances(shopId) }).toMatchObject({
        hold: { status: 'voided', generation: 1 },
        balances: { available: 100, reserved: 0 },
      });

      const retry = { ...first, attemptId: randomUUID() };
      const again = await reserve(retry);
      expect(again).toMatchObject({ ok: true, result: { payoutId: first.payoutId, status: 'held', amount: '30' } });
      expect({ hold: await holdOf(first.payoutId), balances: await balances(shopId) }).toMatchObject({
        hold: { status: 'held', generation: 2 },
        balances: { available: 70, reserved: 30 },
      });
      // The same command handled again answers the new hold; nothing is held a third time.
      expect(await reserve(retry)).toEqual(again);
      expect({ hold: await holdOf(first.payoutId), balances: await balances(shopId) }).toMatchObject({
        hold: { status: 'held', generation: 2 },
        balances: { available: 70, reserved: 30 },
      });

      await t.ds.transaction((m) => payoutHolds.finish(m, first.payoutId, 'posted'));
      expect(await balances(shopId)).toMatchObject({ available: 70, reserved: 0 });
      expect(await bookedFor(first.payoutId, kinds)).toEqual([
        `payout_reserved payout:${first.payoutId}:reserved`,
        `payout_voided payout:${first.payoutId}:voided`,
        `payout_reserved payout:${first.payoutId}:reserved:2`,
        `payout_posted payout:${first.payoutId}:posted:2`,
      ]);
      await booksClean();
    });

    it("when the sweep voids a payout's hold while its retry asks for it, then the retry waits for the hold's row holding no account, and holds it anew", async () => {
      const { shopId } = await shopWith100();
      const cmd = aPayoutAsk(shopId, '30.00');
      expect(codeOf(await reserve(cmd))).toBe('ok');
      let asked: Promise<Reply<unknown>> | undefined;
      // As the sweep takes an orphan: the hold's row first, then the shop's accounts to void it.
      await t.ds.transaction(async (m) => {
        await m.query(`SELECT 1 FROM ledger.holds WHERE payout_id = $1 FOR UPDATE`, [cmd.payoutId]);
        asked = reserve({ ...cmd, attemptId: randomUUID() });
        await eventually(
          async () => ((await waiting()) ? true : undefined),
          10_000,
          "the retry waiting for the hold's row",
        );
        // Were the retry holding the accounts, this would wait for it in turn: a deadlock.
        expect(await payoutHolds.finish(m, cmd.payoutId, 'voided')).toMatchObject({ status: 'voided' });
      });
      expect(await asked!).toMatchObject({ ok: true, result: { status: 'held' } });
      expect({ hold: await holdOf(cmd.payoutId), balances: await balances(shopId) }).toMatchObject({
        hold: { status: 'held', generation: 2 },
        balances: { available: 70, reserved: 30 },
      });
      await booksClean();
    });

    it('when a payout held anew is voided again, then the second void gives its money back too', async () => {
      const { shopId } = await shopWith100();
      const cmd = aPayoutAsk(shopId, '30.00');
      await voidedTwice('payout', cmd.payoutId, shopId, (attemptId) => reserve({ ...cmd, attemptId }), holdOf);
    });

    it("when a payout's hold was voided by the payout's own failure, then asked for again (its command handled again) it is answered as it is and not held", async () => {
      const { shopId } = await shopWith100();
      const cmd = aPayoutAsk(shopId, '30.00');
      expect(codeOf(await reserve(cmd))).toBe('ok');
      // The payout exists: its first event confirmed the hold, its failure voided it.
      await t.ds.transaction(async (m) => {
        await new HoldRepository({ schema: 'ledger' }).confirm(m, [cmd.payoutId], new Date());
        await payoutHolds.finish(m, cmd.payoutId, 'voided');
      });

      expect(await reserve(cmd)).toMatchObject({ ok: true, result: { status: 'voided' } });
      expect({ hold: await holdOf(cmd.payoutId), balances: await balances(shopId) }).toMatchObject({
        hold: { status: 'voided', generation: 1 },
        balances: { available: 100, reserved: 0 },
      });
      await booksClean();
    });

    it('when the balance no longer covers a voided payout asked for again, then it is refused with 1-06-02 and nothing is held', async () => {
      const { shopId } = await shopWith100();
      const cmd = aPayoutAsk(shopId, '30.00');
      expect(codeOf(await reserve(cmd))).toBe('ok');
      await orphans.sweep();
      expect(codeOf(await reserve(aPayoutAsk(shopId, '80.00')))).toBe('ok');

      expect(codeOf(await reserve({ ...cmd, attemptId: randomUUID() }))).toBe('1-06-02');
      expect({ hold: await holdOf(cmd.payoutId), balances: await balances(shopId) }).toMatchObject({
        hold: { status: 'voided', generation: 1 },
        balances: { available: 20, reserved: 80 },
      });
      await booksClean();
    });

    it('when a payout completes after its hold was voided, then it is booked from available, what available lacks as the shop’s debt, once', async () => {
      const { shopId } = await shopWith100();
      await t.ds.query(
        `INSERT INTO ledger.fee_schedules (shop_id, method, currency, fixed) VALUES ($1, 'card', 'USD', 2)`,
        [shopId],
      );
      const late = aPayoutAsk(shopId, '30.00');
      expect(codeOf(await reserve(late))).toBe('ok');
      await orphans.sweep();
      // The balance taken meanwhile by another payout: 88.00 + 2.00 of 100.00, 10.00 left.
      expect(codeOf(await reserve(aPayoutAsk(shopId, '88.00')))).toBe('ok');
      expect(await balances(shopId)).toMatchObject({ available: 10, reserved: 90 });

      const done = await t.ds.transaction((m) => payoutHolds.finish(m, late.payoutId, 'posted'));
      expect(done).toMatchObject({ status: 'posted' });
      // 30.00 + its 2.00 fee: 10.00 from available, 22.00 owed.
      expect(await balances(shopId)).toMatchObject({ available: 0, reserved: 90, receivable: -22 });
      expect(await holdOf(late.payoutId)).toMatchObject({ status: 'posted', generation: 1 });
      // Its completion delivered again posts nothing more.
      expect(await t.ds.transaction((m) => payoutHolds.finish(m, late.payoutId, 'posted'))).toBeNull();
      const [posted] = await t.ds.query(
        `SELECT gross::float, fee::float, net::float, balance_amount::float FROM ledger.transactions
          WHERE source_id = $1 AND kind = 'payout_posted'`,
        [late.payoutId],
      );
      expect(posted).toEqual({ gross: 32, fee: 2, net: 30, balance_amount: -32 });
      await booksClean();
    });
  });

  describe('refunds', () => {
    const reserve = askRefund;
    const holdOf = async (refundId: string) =>
      (await t.ds.query(`SELECT status, generation FROM ledger.refund_holds WHERE refund_id = $1`, [refundId]))[0];
    const refunded = (shopId: string, orderId: string, refundId: string) =>
      t.ds.transaction((m) =>
        t.booker.book(m, [aCompletion(shopId, { orderId, kind: 'refunded', refundId, amount: amountOf('10.00') })]),
      );

    it("when a refund's hold was voided as an orphan and the retry asks for it again, then it is held anew, and booking the refund posts that hold", async () => {
      const { shopId, orderId } = await shopWith100();
      const cmd = { refundId: randomUUID(), orderId, shopId, amount: '10.00', attemptId: randomUUID() };
      expect(codeOf(await reserve(cmd))).toBe('ok');
      await orphans.sweep();
      expect(await balances(shopId)).toMatchObject({ available: 100, reserved: 0 });

      const again = await reserve({ ...cmd, attemptId: randomUUID() });
      expect(again).toMatchObject({ ok: true, result: { refundId: cmd.refundId, status: 'held', amount: '10' } });
      expect({ hold: await holdOf(cmd.refundId), balances: await balances(shopId) }).toMatchObject({
        hold: { status: 'held', generation: 2 },
        balances: { available: 90, reserved: 10 },
      });

      await refunded(shopId, orderId, cmd.refundId);
      expect({ hold: await holdOf(cmd.refundId), balances: await balances(shopId) }).toMatchObject({
        hold: { status: 'posted', generation: 2 },
        balances: { available: 90, reserved: 0 },
      });
      expect(await bookedFor(cmd.refundId, ['refund_reserved', 'refund_voided'])).toEqual([
        `refund_reserved refund:${cmd.refundId}:reserved`,
        `refund_voided refund:${cmd.refundId}:voided`,
        `refund_reserved refund:${cmd.refundId}:reserved:2`,
      ]);
      await booksClean();
    });

    it("when the sweep voids a refund's hold while its retry asks for it, then the retry waits for the hold's row holding no account, and holds it anew", async () => {
      const { shopId, orderId } = await shopWith100();
      const cmd = { refundId: randomUUID(), orderId, shopId, amount: '10.00', attemptId: randomUUID() };
      expect(codeOf(await reserve(cmd))).toBe('ok');
      let asked: Promise<Reply<unknown>> | undefined;
      await t.ds.transaction(async (m) => {
        await m.query(`SELECT 1 FROM ledger.refund_holds WHERE refund_id = $1 FOR UPDATE`, [cmd.refundId]);
        asked = reserve({ ...cmd, attemptId: randomUUID() });
        await eventually(
          async () => ((await waiting()) ? true : undefined),
          10_000,
          "the retry waiting for the hold's row",
        );
        expect(await t.refundHolds.void(m, cmd.refundId)).toMatchObject({ status: 'voided' });
      });
      expect(await asked!).toMatchObject({ ok: true, result: { status: 'held' } });
      expect({ hold: await holdOf(cmd.refundId), balances: await balances(shopId) }).toMatchObject({
        hold: { status: 'held', generation: 2 },
        balances: { available: 90, reserved: 10 },
      });
      await booksClean();
    });

    it('when a refund held anew is voided again, then the second void gives its money back too', async () => {
      const { shopId, orderId } = await shopWith100();
      const cmd = { refundId: randomUUID(), orderId, shopId, amount: '10.00' };
      await voidedTwice('refund', cmd.refundId, shopId, (attemptId) => reserve({ ...cmd, attemptId }), holdOf);
    });

    it('when a refund is booked after its hold was voided, then its hold says posted, and asked for again it is not held a second time', async () => {
      const { shopId, orderId } = await shopWith100();
      const cmd = { refundId: randomUUID(), orderId, shopId, amount: '10.00', attemptId: randomUUID() };
      expect(codeOf(await reserve(cmd))).toBe('ok');
      await orphans.sweep();
      await refunded(shopId, orderId, cmd.refundId);
      expect({ hold: await holdOf(cmd.refundId), balances: await balances(shopId) }).toMatchObject({
        hold: { status: 'posted', generation: 1 },
        balances: { available: 90, reserved: 0 },
      });

      expect(await reserve({ ...cmd, attemptId: randomUUID() })).toMatchObject({
        ok: true,
        result: { status: 'posted' },
      });
      expect(await balances(shopId)).toMatchObject({ available: 90, reserved: 0 });
      await booksClean();
    });
  });

  describe('the orphan sweep: what the events consumer has read (decision 357), one hold a transaction (358)', () => {
    const anHourAhead = { now: () => new Date(Date.now() + 3_600_000) };
    const sweeperReadThrough = (through: () => Date | null) =>
      testOrphanSweeper(t, payoutHoldRows, payoutHolds, refusals, anHourAhead, {
        through: async () => through(),
        close: async () => undefined,
      });
    const statusOf = async (payoutId: string, refundId: string) =>
      (
        await t.ds.query(
          `SELECT (SELECT status FROM ledger.holds WHERE payout_id = $1) AS payout,
                  (SELECT status FROM ledger.refund_holds WHERE refund_id = $2) AS refund`,
          [payoutId, refundId],
        )
      )[0];

    it('when the sweep cannot tell how far the events were read, they were read only through the moment after the holds, or the clock says the bound has not passed, then it voids nothing; read through past the bound, it voids them', async () => {
      const { shopId, orderId } = await shopWith100();
      const payout = aPayoutAsk(shopId, '30.00');
      const refund = { refundId: randomUUID(), orderId, shopId, amount: '10.00', attemptId: randomUUID() };
      expect(codeOf(await askPayout(payout))).toBe('ok');
      expect(codeOf(await askRefund(refund))).toBe('ok');
      const heldAt = Date.now();

      // The clock is an hour ahead: by it alone both holds are orphans.
      expect(await sweeperReadThrough(() => null).sweep()).toBe(0);
      // Read through a minute after the holds: an event published in the bound's other 14 may wait unread.
      expect(await sweeperReadThrough(() => new Date(heldAt + 60_000)).sweep()).toBe(0);
      // Read through an hour ahead, but by the clock the holds are new: the bound has not passed.
      const byTheClock = testOrphanSweeper(t, payoutHoldRows, payoutHolds, refusals, systemClock, {
        through: async () => new Date(Date.now() + 3_600_000),
        close: async () => undefined,
      });
      expect(await byTheClock.sweep()).toBe(0);
      expect(await statusOf(payout.payoutId, refund.refundId)).toEqual({ payout: 'held', refund: 'held' });
      expect(await balances(shopId)).toMatchObject({ available: 60, reserved: 40 });

      expect(await sweeperReadThrough(() => new Date(heldAt + 900_001)).sweep()).toBe(2);
      expect(await statusOf(payout.payoutId, refund.refundId)).toEqual({ payout: 'voided', refund: 'voided' });
      expect(await balances(shopId)).toMatchObject({ available: 100, reserved: 0 });
      await booksClean();
    });

    it('when one orphan fails to void, then it alone is left held and named, the others are voided, and the next run voids it', async () => {
      const { shopId, orderId } = await shopWith100();
      const [first, second] = [aPayoutAsk(shopId, '20.00'), aPayoutAsk(shopId, '30.00')];
      const refund = { refundId: randomUUID(), orderId, shopId, amount: '10.00', attemptId: randomUUID() };
      for (const payload of [first, second]) expect(codeOf(await askPayout(payload))).toBe('ok');
      expect(codeOf(await askRefund(refund))).toBe('ok');
      // The oldest orphan's void cannot post: its row was mended by hand to more than is reserved,
      // so the void would take reserved below zero.
      const mend = (amount: string) =>
        t.ds.query(`UPDATE ledger.holds SET amount = $2 WHERE payout_id = $1`, [first.payoutId, amount]);
      await mend('1000.00');
      const sweeper = sweeperReadThrough(() => new Date(Date.now() + 3_600_000));

      await expect(sweeper.sweep()).rejects.toThrow(`their voids failed: ${first.payoutId}`);
      expect(await statusOf(second.payoutId, refund.refundId)).toEqual({ payout: 'voided', refund: 'voided' });
      expect(await statusOf(first.payoutId, refund.refundId)).toMatchObject({ payout: 'held' });
      expect(await balances(shopId)).toMatchObject({ available: 80, reserved: 20 });

      await mend('20.00');
      expect(await sweeper.sweep()).toBe(1);
      expect(await statusOf(first.payoutId, refund.refundId)).toEqual({ payout: 'voided', refund: 'voided' });
      expect(await balances(shopId)).toMatchObject({ available: 100, reserved: 0 });
      await booksClean();
    });
  });
});
