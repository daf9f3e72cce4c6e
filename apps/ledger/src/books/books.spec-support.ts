import { randomUUID } from 'node:crypto';
import type { ReservePayoutCommand } from '@payments/contracts';
import { DataSource } from 'typeorm';
import { ledgerCurrency, LedgerCurrency } from '@payments/ledger-domain';
import { amountOf } from '@payments/money';
import { Clock, openServiceDatabase, systemClock } from '@payments/platform';
import { createTestDatabase } from '@payments/testing';
import { OrderBooker } from '../book-orders/order-booker';
import { OrderBooking } from '../book-orders/order-event';
import { LedgerConfig } from '../config';
import { AwaitingRateRepository } from '../convert-rates/awaiting-rate.repository';
import { HoldRepository } from '../hold-payouts/hold.repository';
import { PayoutHolds } from '../hold-payouts/payout-holds';
import { HoldRefusalRepository } from '../hold-refusals/hold-refusal.repository';
import { RefundHoldRepository } from '../hold-refunds/refund-hold.repository';
import { RefundHolds } from '../hold-refunds/refund-holds';
import { LEDGER_MIGRATIONS } from '../migrations';
import { OrphanHoldSweeper } from '../orphan-holds/orphan-hold.sweeper';
import { EventsReadThrough } from '../tokens';
import { SettlementSweeper } from '../settle/settlement.sweeper';
import { LedgerRepository } from './ledger.repository';

/** A currency of the registry, for a spec that books in it. */
export const testCurrency = (code: string): LedgerCurrency => {
  const c = ledgerCurrency(code);
  if (c.kind !== 'ok') throw new Error(c.reason);
  return c.currency;
};

/** An order of 100.00 USD completed by card through the sandbox, credited in USD; `over` changes any of it. */
export const aCompletion = (shopId: string, over: Partial<OrderBooking> = {}): OrderBooking => ({
  eventId: randomUUID(),
  occurredAt: new Date(),
  kind: 'completed',
  orderId: randomUUID(),
  shopId,
  method: 'card',
  provider: 'sandbox',
  orderCurrency: testCurrency('USD'),
  balanceCurrency: testCurrency('USD'),
  amount: amountOf('100.00'),
  ...over,
});

/** The payouts service's ask for a new card payout of `amount` USD through the sandbox, under a command of its own. */
export const aPayoutAsk = (shopId: string, amount: string): ReservePayoutCommand => ({
  payoutId: randomUUID(),
  shopId,
  provider: 'sandbox',
  method: 'card',
  cost: { amount, currency: 'USD' },
  attemptId: randomUUID(),
});

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

/** The settlement sweep on the test books, run by hand (`sweep()`): its timer is never started. */
export const testSweeper = (t: TestBooks): SettlementSweeper =>
  new SettlementSweeper(
    t.ds,
    t.books,
    { settlementSweepMs: 60_000, settlementBatch: 200 } as LedgerConfig,
    systemClock,
  );

/**
 * The orphan sweep on `t`'s books with the default bounds (15 minutes, refusals kept 8 days), run
 * by hand (its interval is never started) at `clock`'s time. These specs run no Kafka: their
 * events consumer reads as caught up at that time, unless `readThrough` says otherwise. The gate itself (decision 357) is tested against
 * a broker in libs/messaging's read-through spec and orphan-holds.component.spec.ts.
 */
export const testOrphanSweeper = (
  t: TestBooks,
  payoutHoldRows: HoldRepository,
  payoutHolds: PayoutHolds,
  refusals: HoldRefusalRepository,
  clock: Clock,
  readThrough: EventsReadThrough = { through: async () => clock.now(), close: async () => undefined },
): OrphanHoldSweeper =>
  new OrphanHoldSweeper(
    t.ds,
    payoutHoldRows,
    payoutHolds,
    t.holds,
    t.refundHolds,
    refusals,
    { orphanSweepMs: 60_000, orphanHoldAfterMs: 900_000, holdRefusalKeepMs: 8 * 86_400_000 } as LedgerConfig,
    clock,
    readThrough,
  );
