import { DataSource } from 'typeorm';
import { openServiceDatabase, systemClock } from '@payments/platform';
import { createTestDatabase } from '@payments/testing';
import { OrderBooker } from '../book-orders/order-booker';
import { AwaitingRateRepository } from '../convert-rates/awaiting-rate.repository';
import { RefundHoldRepository } from '../hold-refunds/refund-hold.repository';
import { RefundHolds } from '../hold-refunds/refund-holds';
import { LEDGER_MIGRATIONS } from '../migrations';
import { LedgerRepository } from './ledger.repository';

/** The books in process, on a test database of their own with the ledger's schema migrated: what the component specs drive. */
export interface TestBooks {
  ds: DataSource;
  books: LedgerRepository;
  holds: RefundHoldRepository;
  awaiting: AwaitingRateRepository;
  refundHolds: RefundHolds;
  booker: OrderBooker;
  close(): Promise<void>;
}

export async function openTestBooks(): Promise<TestBooks> {
  const db = await createTestDatabase();
  const ds = await openServiceDatabase({ url: db.url, schema: 'ledger', entities: [], migrations: LEDGER_MIGRATIONS });
  const config = { schema: 'ledger' };
  const books = new LedgerRepository(config);
  const holds = new RefundHoldRepository(config);
  const awaiting = new AwaitingRateRepository(config);
  const refundHolds = new RefundHolds(books, holds, awaiting, systemClock);
  return {
    ds,
    books,
    holds,
    awaiting,
    refundHolds,
    booker: new OrderBooker(books, holds, refundHolds, awaiting),
    close: async () => {
      await ds.destroy();
      await db.drop();
    },
  };
}
