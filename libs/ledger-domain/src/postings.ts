import { Amount, MoneyDecimal } from '@payments/money';
import { AccountRef, accountKey } from './accounts';
import { fitsScale, LedgerCurrency } from './ledger-currency';

/**
 * One line of a ledger transaction. `amount` is signed: positive raises the account's balance,
 * negative lowers it. A shop's balance is what the service owes it, so a positive posting to a
 * shop account is a credit to the shop; the provider clearing account runs negative while the
 * provider owes us the money it collected.
 */
export interface Posting {
  account: AccountRef;
  amount: Amount;
}

export type BalanceCheck = { kind: 'ok' } | { kind: 'unbalanced'; reason: string };

/**
 * The double-entry rule: per currency the postings sum to zero, each amount fits its currency's
 * scale, and there are at least two. A transaction that breaks it is a bug, never posted.
 */
export function checkPostings(
  postings: readonly Posting[],
  currencies: ReadonlyMap<string, LedgerCurrency>,
): BalanceCheck {
  if (postings.length < 2) return { kind: 'unbalanced', reason: 'a transaction needs at least two postings' };
  const sums = new Map<string, Amount>();
  for (const p of postings) {
    const currency = currencies.get(p.account.currency);
    if (!currency) return { kind: 'unbalanced', reason: `currency ${p.account.currency} has no scale` };
    if (!fitsScale(p.amount, currency))
      return {
        kind: 'unbalanced',
        reason: `${accountKey(p.account)}: ${p.amount.toFixed()} has more than ${currency.scale} decimals`,
      };
    sums.set(currency.code, (sums.get(currency.code) ?? new MoneyDecimal(0)).plus(p.amount));
  }
  for (const [code, sum] of sums)
    if (!sum.isZero()) return { kind: 'unbalanced', reason: `postings in ${code} sum to ${sum.toFixed()}, not zero` };
  return { kind: 'ok' };
}

/** Leaves out postings of zero (a fee of zero posts nothing) and joins postings to one account. */
export function compact(postings: readonly Posting[]): Posting[] {
  const byKey = new Map<string, Posting>();
  for (const p of postings) {
    const key = accountKey(p.account);
    const seen = byKey.get(key);
    byKey.set(key, seen ? { account: p.account, amount: seen.amount.plus(p.amount) } : p);
  }
  return [...byKey.values()].filter((p) => !p.amount.isZero());
}
