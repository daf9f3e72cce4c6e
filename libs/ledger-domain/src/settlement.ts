import { Amount, MoneyDecimal } from '@payments/money';
import { shopAccount } from './accounts';
import { Posting } from './postings';

export type SettlementPlan = { kind: 'settle'; amount: Amount; postings: Posting[] } | { kind: 'nothing' };

/**
 * A credit's settlement: its amount moves from pending to available, or what is left of it in
 * pending when a refund took part of it meanwhile.
 */
export function planSettlement(shopId: string, currency: string, credited: Amount, pending: Amount): SettlementPlan {
  const amount = MoneyDecimal.min(credited, pending);
  if (!amount.greaterThan(0)) return { kind: 'nothing' };
  return {
    kind: 'settle',
    amount,
    postings: [
      { account: shopAccount(shopId, 'pending', currency), amount: amount.negated() },
      { account: shopAccount(shopId, 'available', currency), amount },
    ],
  };
}

/** When a credit made at `at` becomes available: after the shop's delay (0 allowed). */
export function availableOn(at: Date, delaySeconds: number): Date {
  return new Date(at.getTime() + delaySeconds * 1000);
}
