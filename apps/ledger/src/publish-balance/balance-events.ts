import { BalanceChanged, envelope, LedgerEventTypes, Topics } from '@payments/contracts';
import { AccountRef, shopAccount, ShopAccountKind } from '@payments/ledger-domain';
import { OutboxItem } from '@payments/messaging';
import { formatAmount } from '@payments/money';
import type { LockedBalances, NewTransaction, TransactionToPost } from '../books/ledger.repository';

/**
 * The figures a merchant reads (GET /balance) and a balance event carries: available, pending,
 * reserved, and receivable, shown as `owed` (decisions 345, 348).
 */
export const MERCHANT_KINDS: readonly ShopAccountKind[] = ['available', 'pending', 'reserved', 'receivable'];

/**
 * Every shop account ref with the merchant's figures of its shop and currency beside it: whatever a
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
 * The balance events of what one database transaction posted (decision 339, amending 313): one
 * per shop and currency whose available, pending, reserved or receivable they moved, with the
 * figures after all of them (from the locked balances, already applied; `owed` the receivable
 * negated, decision 348), the last transaction that moved them and the list of all that did, in
 * posting order; keyed by the shop. A transaction that moves only suspense tells nothing: no
 * figure a merchant reads moved.
 */
export function balanceChangedItems(posted: readonly TransactionToPost[], books: LockedBalances): OutboxItem[] {
  const moved = new Map<string, { shopId: string; currency: string; txs: NewTransaction[] }>();
  for (const { tx, postings } of posted)
    for (const p of postings) {
      const a = p.account;
      if (a.owner !== 'shop' || !MERCHANT_KINDS.includes(a.kind) || p.amount.isZero()) continue;
      const shopId = a.shopId.toLowerCase();
      const key = `${shopId}:${a.currency}`;
      const entry = moved.get(key) ?? { shopId, currency: a.currency, txs: [] };
      if (entry.txs.at(-1) !== tx) entry.txs.push(tx);
      moved.set(key, entry);
    }
  return [...moved.values()].map(({ shopId, currency, txs }) => {
    const balance = (kind: ShopAccountKind) => books.of(shopAccount(shopId, kind, currency));
    const figure = (kind: ShopAccountKind) => formatAmount(balance(kind));
    const ref = (tx: NewTransaction) => ({
      id: tx.id,
      kind: tx.kind,
      source: { type: tx.sourceType, id: tx.sourceId },
      amount: formatAmount(tx.balanceAmount),
    });
    const last = txs[txs.length - 1];
    const payload: BalanceChanged = {
      shopId,
      currency,
      available: figure('available'),
      pending: figure('pending'),
      reserved: figure('reserved'),
      // The receivable runs negative by what the shop owes, as GET /balance shows it (decision 345).
      owed: formatAmount(balance('receivable').negated()),
      transaction: ref(last),
      transactions: txs.map(ref),
    };
    return {
      topic: Topics.ledgerEvents,
      key: shopId,
      envelope: envelope({ type: LedgerEventTypes.balanceChanged, occurredAt: last.createdAt, payload }),
    };
  });
}
