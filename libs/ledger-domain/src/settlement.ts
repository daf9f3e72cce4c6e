import { Amount, MoneyDecimal } from '@payments/money';
import { shopAccount } from './accounts';
import { compact, Posting } from './postings';

export type SettlementPlan =
  | {
      kind: 'settle';
      /** What leaves pending: the credits, or what refunds left of them. */
      amount: Amount;
      /** The part of `amount` that pays what the shop owed (its receivable back toward zero; decision 348). */
      repaid: Amount;
      postings: Posting[];
    }
  | { kind: 'nothing' };

/**
 * The settlement of a shop's due credits in a currency (one, or a sweep batch's together, decision
 * 351): their amount moves out of pending, or what is left in pending when refunds took part of it
 * meanwhile. What the shop owes in the currency (its receivable, negative
 * by the debt; decisions 276, 312) is paid first, the rest goes to available (decision 348): a
 * shop owing 30 whose credit of 100 settles ends with 70 more available and owes nothing.
 */
export function planSettlement(
  shopId: string,
  currency: string,
  credited: Amount,
  pending: Amount,
  receivable: Amount = new MoneyDecimal(0),
): SettlementPlan {
  const amount = MoneyDecimal.min(credited, pending);
  if (!amount.greaterThan(0)) return { kind: 'nothing' };
  const owed = MoneyDecimal.max(receivable.negated(), 0);
  const repaid = MoneyDecimal.min(amount, owed);
  return {
    kind: 'settle',
    amount,
    repaid,
    postings: compact([
      { account: shopAccount(shopId, 'pending', currency), amount: amount.negated() },
      { account: shopAccount(shopId, 'receivable', currency), amount: repaid },
      { account: shopAccount(shopId, 'available', currency), amount: amount.minus(repaid) },
    ]),
  };
}

/** When a credit made at `at` becomes available: after the shop's delay (0 allowed). */
export function availableOn(at: Date, delaySeconds: number): Date {
  return new Date(at.getTime() + delaySeconds * 1000);
}
