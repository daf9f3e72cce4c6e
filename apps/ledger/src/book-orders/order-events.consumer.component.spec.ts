import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { envelope, Envelope, OrderEventTypes } from '@payments/contracts';
import { BatchMessageFailure, Inbox } from '@payments/messaging';
import { openTestBooks, TestBooks } from '../books/books.spec-support';
import { OrderEventsConsumer } from './order-events.consumer';

/**
 * Decision 353 against real PostgreSQL: the partitions' batches handed over together are booked
 * in one transaction, and a batch holding an event the books cannot take fails alone while the
 * others are booked.
 */
describe('ledger: the partitions of one fetch booked in one transaction', () => {
  let t: TestBooks;
  let ds: DataSource;
  let consumer: OrderEventsConsumer;
  let inbox: Inbox;

  beforeAll(async () => {
    t = await openTestBooks();
    ds = t.ds;
    inbox = new Inbox(ds, 'ledger', 'ledger');
    consumer = new OrderEventsConsumer(inbox, t.booker);
  });

  afterAll(async () => {
    await t?.close();
  });

  afterEach(() => jest.restoreAllMocks());

  /** A shop whose card fee in USD is `percent` % plus `fixed`. */
  const aShop = async (percent: string, fixed = '0') => {
    const shop = randomUUID();
    await ds.query(
      `INSERT INTO ledger.fee_schedules (shop_id, method, currency, percent, fixed) VALUES ($1, 'card', 'USD', $2, $3)`,
      [shop, percent, fixed],
    );
    return shop;
  };
  const completed = (shopId: string): Envelope =>
    envelope({
      type: OrderEventTypes.statusChanged,
      occurredAt: new Date(),
      payload: {
        orderId: randomUUID(),
        shopId,
        merchantOrderId: 'm-1',
        sequence: 3,
        status: 'completed',
        previousStatus: 'in_progress',
        method: 'card',
        provider: 'sandbox',
        cost: { amount: '100.00', currency: 'USD' },
      },
    });
  const pending = async (shopId: string) => {
    const [row] = await ds.query(
      `SELECT balance::text FROM ledger.accounts WHERE shop_id = $1 AND kind = 'pending' AND currency = 'USD'`,
      [shopId],
    );
    return row ? String(Number(row.balance)) : '0';
  };
  const credits = async (shopId: string) =>
    Number((await ds.query(`SELECT count(*) AS n FROM ledger.transactions WHERE shop_id = $1`, [shopId]))[0].n);

  it('when three partitions hand over their batches at once, then one transaction books them all', async () => {
    const shop = await aShop('2');
    const transactions = jest.spyOn(inbox, 'processBatch');
    const batches = [
      [completed(shop), completed(shop)],
      [completed(shop)],
      [completed(shop), completed(shop), completed(shop)],
    ];
    await Promise.all(batches.map((b) => consumer.book(b)));
    expect({ transactions: transactions.mock.calls.length, credits: await credits(shop) }).toEqual({
      transactions: 1,
      credits: 6,
    });
    expect(await pending(shop)).toBe(String(6 * 98));
    // Delivered again (the offsets were not committed before a crash): nothing posts twice.
    await Promise.all(batches.map((b) => consumer.book(b)));
    expect({ credits: await credits(shop), pending: await pending(shop) }).toEqual({ credits: 6, pending: '588' });
  });

  it('when one batch holds an event the books cannot take, then it alone fails, naming it, and the others are booked', async () => {
    const good = await aShop('2');
    // A fixed fee above the amount: the completion cannot be booked (a fee never exceeds the amount).
    const bad = await aShop('0', '500');
    const fine = [completed(good), completed(good)];
    const broken = [completed(good), completed(bad)];
    const alsoFine = [completed(good)];
    const transactions = jest.spyOn(inbox, 'processBatch');
    const outcomes = await Promise.allSettled([fine, broken, alsoFine].map((b) => consumer.book(b)));
    // The group's transaction failed, naming the event: its batch is answered with that, and the
    // two others are booked together in a second transaction.
    expect(transactions.mock.calls.map(([messages]) => messages.length)).toEqual([5, 3]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const failure = (outcomes[1] as PromiseRejectedResult).reason;
    expect(failure).toBeInstanceOf(BatchMessageFailure);
    expect((failure as BatchMessageFailure).eventId).toBe(broken[1].eventId.toLowerCase());
    // The failed batch's transaction was rolled back whole: its good event is not booked yet (the
    // transport books the batch again without the dead-lettered event).
    expect({ good: await credits(good), bad: await credits(bad) }).toEqual({ good: 3, bad: 0 });
    await consumer.book([broken[0]]);
    expect({ good: await credits(good), pending: await pending(good) }).toEqual({ good: 4, pending: '392' });
  });

  it('when batches come one after the other, then each is its own transaction', async () => {
    const shop = await aShop('2');
    const transactions = jest.spyOn(inbox, 'processBatch');
    await consumer.book([completed(shop)]);
    await consumer.book([completed(shop)]);
    expect({ transactions: transactions.mock.calls.length, credits: await credits(shop) }).toEqual({
      transactions: 2,
      credits: 2,
    });
  });
});
