import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { BalanceChanged, Envelope, Topics } from '@payments/contracts';
import { amountOf } from '@payments/money';
import { aCompletion, openTestBooks, testSweeper, TestBooks } from '../books/books.spec-support';
import { BalanceReads } from '../read-balance/balance.reads';
import { OrderBooker } from './order-booker';
import { OrderBooking } from './order-event';

/**
 * Decisions 339 and 340 against real PostgreSQL, in process: a partition batch of completions is
 * booked in a constant number of statements, a duplicate in it posts once, a refund after a
 * completion of the same batch is decided on the balance the completion credited, and the batch
 * tells each shop's balance once, with the figures GET /balance then answers.
 */
describe('ledger: a batch booked in a constant number of statements', () => {
  let t: TestBooks;
  let ds: DataSource;
  let booker: OrderBooker;
  let reads: BalanceReads;

  beforeAll(async () => {
    t = await openTestBooks();
    ({ ds, booker } = t);
    reads = new BalanceReads(ds, { schema: 'ledger' });
  });

  afterAll(async () => {
    await t?.close();
  });

  afterEach(() => jest.restoreAllMocks());

  /** A shop with a 2 % card fee in USD: a completion of 100.00 credits 98 to pending. */
  const aShop = async (settlementDelaySeconds?: number) => {
    const shop = randomUUID();
    await ds.query(
      `INSERT INTO ledger.fee_schedules (shop_id, method, currency, percent) VALUES ($1, 'card', 'USD', 2)`,
      [shop],
    );
    if (settlementDelaySeconds !== undefined)
      await ds.query(`INSERT INTO ledger.shop_settings (shop_id, settlement_delay_seconds) VALUES ($1, $2)`, [
        shop,
        settlementDelaySeconds,
      ]);
    return shop;
  };

  /** Books a batch in one transaction; answers how many statements the booking sent. */
  const book = async (events: OrderBooking[]): Promise<number> => {
    const sent = jest.spyOn(EntityManager.prototype, 'query');
    await ds.transaction((m) => booker.book(m, events));
    const n = sent.mock.calls.length;
    sent.mockRestore();
    return n;
  };

  const balance = async (shopId: string, kind: string) => {
    const [row] = await ds.query(
      `SELECT balance::text FROM ledger.accounts WHERE shop_id = $1 AND kind = $2 AND currency = 'USD'`,
      [shopId, kind],
    );
    return row ? String(Number(row.balance)) : '0';
  };
  const balanceEvents = async (shopId: string): Promise<BalanceChanged[]> => {
    const rows: { envelope: Envelope<BalanceChanged> }[] = await ds.query(
      `SELECT envelope FROM ledger.outbox WHERE topic = $1 AND key = $2 ORDER BY id`,
      [Topics.ledgerEvents, shopId],
    );
    return rows.map((r) => r.envelope.payload);
  };
  const count = async (sql: string, shopId: string) => Number((await ds.query(sql, [shopId]))[0].n);

  it('when N completions of one shop are booked in one batch, then the statements do not grow with N', async () => {
    const one = await aShop();
    const many = await aShop();
    const forOne = await book([aCompletion(one)]);
    const forMany = await book(Array.from({ length: 25 }, () => aCompletion(many)));
    // Delays, fees, the accounts' opening and lock, the transactions, postings, balances, the
    // settlement queue and the outbox: per batch, not per event (the per-event booking sent ~100).
    expect(forMany).toBe(forOne);
    expect(forMany).toBeLessThanOrEqual(10);
    expect(await balance(many, 'pending')).toBe('2450');
    expect(await count(`SELECT count(*) AS n FROM ledger.transactions WHERE shop_id = $1`, many)).toBe(25);
    expect(await count(`SELECT count(*) AS n FROM ledger.pending_settlements WHERE shop_id = $1`, many)).toBe(25);
    const postings = await count(
      `SELECT count(*) AS n FROM ledger.postings p JOIN ledger.transactions t ON t.id = p.transaction_id WHERE t.shop_id = $1`,
      many,
    );
    expect(postings).toBe(25 * 3);
    // Once the shop's accounts exist, locking them is the one statement: no insert to open them.
    expect(await book([aCompletion(many)])).toBe(forOne - 2);
  });

  it('when a batch holds an event twice and a second event of the same completion, then it posts once', async () => {
    const shop = await aShop();
    const credit = aCompletion(shop);
    const again = { ...credit, eventId: randomUUID() };
    const other = aCompletion(shop);
    await book([credit, credit, again, other]);
    // A redelivery in a later batch posts nothing either.
    await book([credit]);
    const { rows } = {
      rows: await ds.query(`SELECT source_id, idempotency_key FROM ledger.transactions WHERE shop_id = $1`, [shop]),
    };
    expect(rows.map((r: { source_id: string }) => r.source_id).sort()).toEqual([credit.orderId, other.orderId].sort());
    expect(rows.find((r: { source_id: string }) => r.source_id === credit.orderId).idempotency_key).toBe(
      credit.eventId,
    );
    expect(await balance(shop, 'pending')).toBe('196');
    expect(await count(`SELECT count(*) AS n FROM ledger.pending_settlements WHERE shop_id = $1`, shop)).toBe(2);
    const events = await balanceEvents(shop);
    expect(events).toHaveLength(1);
    expect(events[0].transactions).toHaveLength(2);
  });

  it('when a refund follows the completion it refunds in the same batch, then it is decided on the credited balance', async () => {
    const shop = await aShop();
    const credit = aCompletion(shop);
    const refund: OrderBooking = {
      ...credit,
      eventId: randomUUID(),
      kind: 'refunded',
      amount: amountOf('30.00'),
      refundId: randomUUID(),
    };
    const later = aCompletion(shop);
    await book([credit, refund, later]);
    // 98 credited, 30 of it refunded from pending: nothing the shop owes (no receivable), then 98 more.
    expect(await balance(shop, 'pending')).toBe('166');
    expect(await balance(shop, 'receivable')).toBe('0');
    const kinds = await ds.query(`SELECT kind FROM ledger.transactions WHERE shop_id = $1 ORDER BY created_at, kind`, [
      shop,
    ]);
    expect(kinds.map((k: { kind: string }) => k.kind).sort()).toEqual([
      'order_completed',
      'order_completed',
      'order_refunded',
    ]);
    // One event for the batch, naming its three transactions in booking order, its figures those after it.
    const events = await balanceEvents(shop);
    expect(events).toHaveLength(1);
    expect(events[0].transactions!.map((t) => [t.kind, t.amount])).toEqual([
      ['order_completed', '98'],
      ['order_refunded', '-30'],
      ['order_completed', '98'],
    ]);
    expect(events[0].transaction).toEqual(events[0].transactions![2]);
    expect((await reads.balance(shop)).balances).toEqual([
      {
        currency: 'USD',
        available: events[0].available,
        pending: events[0].pending,
        reserved: events[0].reserved,
        owed: '0',
      },
    ]);
  });

  it("when the event names the shop in capitals, then the shop's own settlement delay applies, not the default", async () => {
    // shop_settings keeps the uuid lowercased; a producer may send it in capitals (a uuid either way).
    const shop = await aShop(0);
    const credit = aCompletion(shop.toUpperCase());
    await book([credit]);
    const [row] = await ds.query(
      `SELECT s.available_on FROM ledger.pending_settlements s JOIN ledger.transactions t ON t.id = s.transaction_id
        WHERE t.source_id = $1`,
      [credit.orderId],
    );
    // A delay of 0: due when it completed (the default would make it a day later).
    expect(new Date(row.available_on).getTime()).toBe(credit.occurredAt.getTime());
  });

  it('when a sweep settles a batch of credits, then it posts them in a constant number of statements and tells the balance once', async () => {
    const shop = await aShop(0);
    await book(Array.from({ length: 7 }, () => aCompletion(shop)));
    const sweeper = testSweeper(t);
    const sent = jest.spyOn(EntityManager.prototype, 'query');
    // Other specs' shops may have credits due too: all of them in one batch.
    expect(await sweeper.sweep()).toBeGreaterThanOrEqual(7);
    expect(sent.mock.calls.length).toBeLessThanOrEqual(7);
    sent.mockRestore();
    expect(await balance(shop, 'pending')).toBe('0');
    expect(await balance(shop, 'available')).toBe('686');
    const events = await balanceEvents(shop);
    expect(events.map((e) => [e.transaction.kind, e.transactions!.length, e.available, e.pending])).toEqual([
      ['order_completed', 7, '0', '686'],
      // the shop's seven due credits settle as one transaction (decision 351)
      ['settlement', 1, '686', '0'],
    ]);
    expect(events[1].transaction.source).toEqual({ type: 'settlement', id: events[1].transaction.id });
    expect((await reads.balance(shop)).balances).toEqual([
      { currency: 'USD', available: '686', pending: '0', reserved: '0', owed: '0' },
    ]);
  });
});
