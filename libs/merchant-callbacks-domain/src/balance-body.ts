import type { BalanceChanged } from '@payments/contracts';

/** The type a balance event has on the merchant's events feed (decision 314). */
export const BALANCE_UPDATED = 'balance.updated';

/**
 * A balance event as the merchant's feed shows it (decision 314), in the shape of a callback body:
 * `objectType` `balance`, `objectId` the last ledger transaction that moved it (each such
 * transaction is an object of one event, so `sequence` is 1), the balance's currency and its
 * available, pending, reserved and owed figures after the ledger's batch, with `transaction` the last
 * and `transactions` every one of the batch that moved it, in order (decision 339: one event per
 * shop, currency and ledger batch). Built from named fields only, never by copying the message.
 * Never sent as a callback: it is on the feed only.
 */
export interface BalanceBody {
  eventId: string;
  type: typeof BALANCE_UPDATED;
  objectType: 'balance';
  objectId: string;
  shopId: string;
  sequence: 1;
  currency: string;
  available: string;
  pending: string;
  reserved: string;
  /** What the shop owes in the currency after the batch (decisions 345, 348); absent only for a batch from before 348. */
  owed?: string;
  transaction: BalanceTransactionRef;
  transactions: BalanceTransactionRef[];
  occurredAt: string;
}

export interface BalanceTransactionRef {
  id: string;
  kind: string;
  source: { type: string; id: string };
  amount: string;
}

const ref = (t: BalanceChanged['transaction']): BalanceTransactionRef => ({
  id: t.id,
  kind: t.kind,
  source: { type: t.source.type, id: t.source.id },
  amount: t.amount,
});

export function toBalanceBody(eventId: string, occurredAt: string, change: BalanceChanged): BalanceBody {
  const t = change.transaction;
  return {
    eventId,
    type: BALANCE_UPDATED,
    objectType: 'balance',
    objectId: t.id,
    shopId: change.shopId,
    sequence: 1,
    currency: change.currency,
    available: change.available,
    pending: change.pending,
    reserved: change.reserved,
    // A message from before decision 348 does not know what was owed: left out rather than guessed.
    ...(change.owed !== undefined ? { owed: change.owed } : {}),
    transaction: ref(t),
    // A message from before decision 339 names only its one transaction.
    transactions: (change.transactions ?? [t]).map(ref),
    occurredAt,
  };
}
