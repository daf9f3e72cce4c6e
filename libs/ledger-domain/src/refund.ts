import { Amount, MoneyDecimal } from '@payments/money';
import { ShopAccountKind, shopAccount } from './accounts';
import { LedgerCurrency, roundDown } from './ledger-currency';
import { compact, Posting } from './postings';

export interface RefundInput {
  shopId: string;
  provider: string;
  /** The refunded amount, in the order currency. */
  amount: Amount;
  orderCurrency: LedgerCurrency;
  /** Where the order's credit went: the balance currency, or the order currency while it waits for a rate. */
  creditCurrency: LedgerCurrency;
  /** The rate of the original credit (null: same currency, or the credit still in suspense). */
  rate: Amount | null;
  /** The shop's balances in `creditCurrency` now, locked. */
  balances: Partial<Record<ShopAccountKind, Amount>>;
  /** The credit is in suspense (no rate yet): the refund takes it back from there. */
  inSuspense: boolean;
}

export type RefundPlan =
  | { kind: 'debit'; postings: Posting[]; debited: Amount; shortfall: Amount }
  | { kind: 'rejected'; field: string; reason: string };

/**
 * A refund sends the amount back through the provider (clearing credited) and takes it from the
 * shop at the original rate: pending first (money not yet settled), then available. The
 * orders service accepted the refund already, so what the balance cannot cover is recorded as the
 * shop's debt (receivable), never as a negative balance. The fee is not given back.
 */
export function planRefund(input: RefundInput): RefundPlan {
  const { shopId, amount, orderCurrency: from, creditCurrency: to } = input;
  if (!amount.greaterThan(0)) return { kind: 'rejected', field: 'amount', reason: 'must be greater than zero' };
  const converted = from.code === to.code || !input.rate;
  const debit = converted ? amount : roundDown(amount.times(input.rate!), to);
  const sources: ShopAccountKind[] = input.inSuspense ? ['suspense'] : ['pending', 'available'];
  const postings: Posting[] = [
    { account: { owner: 'clearing', provider: input.provider, currency: from.code }, amount },
  ];
  if (from.code !== to.code && input.rate) {
    postings.push({ account: { owner: 'fx', currency: from.code }, amount: amount.negated() });
    postings.push({ account: { owner: 'fx', currency: to.code }, amount: debit });
  }
  let left = debit;
  for (const kind of sources) {
    const take = MoneyDecimal.min(left, input.balances[kind] ?? new MoneyDecimal(0));
    if (take.greaterThan(0)) postings.push({ account: shopAccount(shopId, kind, to.code), amount: take.negated() });
    left = left.minus(take);
  }
  if (left.greaterThan(0))
    postings.push({ account: shopAccount(shopId, 'receivable', to.code), amount: left.negated() });
  return { kind: 'debit', postings: compact(postings), debited: debit, shortfall: left };
}
