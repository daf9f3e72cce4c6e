import { Amount } from '@payments/money';
import { shopAccount } from './accounts';
import { RateInForce } from './completion';
import { LedgerCurrency, roundDown } from './ledger-currency';
import { compact, Posting } from './postings';

export interface ConversionInput {
  shopId: string;
  /** What of the credit is still in the shop's suspense, in the order currency (a refund may have taken some). */
  left: Amount;
  orderCurrency: LedgerCurrency;
  balanceCurrency: LedgerCurrency;
  rate: RateInForce;
}

export type ConversionPlan =
  { kind: 'convert'; postings: Posting[]; amount: Amount; credited: Amount; rate: RateInForce } | { kind: 'nothing' };

/**
 * A credit that waited in suspense for a rate (decision 272), converted once the rate exists
 * (decision 304): what is left of it leaves suspense through the FX accounts and reaches the shop's
 * pending in the balance currency, rounded down as a completion's conversion is.
 */
export function planConversion(input: ConversionInput): ConversionPlan {
  const { shopId, left, orderCurrency: from, balanceCurrency: to, rate } = input;
  if (!left.greaterThan(0) || from.code === to.code) return { kind: 'nothing' };
  const credited = roundDown(left.times(rate.rate), to);
  const postings = compact([
    { account: shopAccount(shopId, 'suspense', from.code), amount: left.negated() },
    { account: { owner: 'fx', currency: from.code }, amount: left },
    { account: { owner: 'fx', currency: to.code }, amount: credited.negated() },
    { account: shopAccount(shopId, 'pending', to.code), amount: credited },
  ]);
  return { kind: 'convert', postings, amount: left, credited, rate };
}
