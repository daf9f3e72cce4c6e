import { BalanceChanged, envelope, LedgerEventTypes, Topics } from '@payments/contracts';
import { AccountRef, Posting, shopAccount, ShopAccountKind } from '@payments/ledger-domain';
import { OutboxItem } from '@payments/messaging';
import { formatAmount } from '@payments/money';
import type { LockedBalances, NewTransaction } from '../books/ledger.repository';

/** The balances a merchant reads (GET /balance) and a balance event carries. */
export const MERCHANT_KINDS: readonly ShopAccountKind[] = ['available', 'pending', 'reserved'];

/**
 * Every shop account ref with the merchant's three of its shop and currency beside it: whatever a
 * transaction moves of a shop, the figures its balance event carries are locked with it, so the
 * events of one shop and currency are a consistent sequence in commit order (decision 313).
 */
export function withMerchantBalances(refs: readonly AccountRef[]): AccountRef[] {
  const extra = refs.flatMap((r) =>
    r.owner === 'shop' ? MERCHANT_KINDS.map((kind) => shopAccount(r.shopId, kind, r.currency)) : [],
  );
  return [...refs, ...extra];
}

/**
 * The balance events of a posted transaction: one per shop and currency whose available, pending
 * or reserved it moved, with the three figures after it (from the locked balances, already
 * applied), keyed by the shop. A transaction that moves only suspense or receivable changes no
 * figure a merchant reads, and tells nothing.
 */
export function balanceChangedItems(
  tx: NewTransaction,
  postings: readonly Posting[],
  books: LockedBalances,
): OutboxItem[] {
  const moved = new Map<string, { shopId: string; currency: string }>();
  for (const p of postings) {
    const a = p.account;
    if (a.owner === 'shop' && MERCHANT_KINDS.includes(a.kind) && !p.amount.isZero())
      moved.set(`${a.shopId.toLowerCase()}:${a.currency}`, { shopId: a.shopId.toLowerCase(), currency: a.currency });
  }
  return [...moved.values()].map(({ shopId, currency }) => {
    const figure = (kind: ShopAccountKind) => formatAmount(books.of(shopAccount(shopId, kind, currency)));
    const payload: BalanceChanged = {
      shopId,
      currency,
      available: figure('available'),
      pending: figure('pending'),
      reserved: figure('reserved'),
      transaction: {
        id: tx.id,
        kind: tx.kind,
        source: { type: tx.sourceType, id: tx.sourceId },
        amount: formatAmount(tx.balanceAmount),
      },
    };
    return {
      topic: Topics.ledgerEvents,
      key: shopId,
      envelope: envelope({ type: LedgerEventTypes.balanceChanged, occurredAt: tx.createdAt, payload }),
    };
  });
}
