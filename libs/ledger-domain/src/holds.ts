import { Amount, MoneyDecimal } from '@payments/money';
import { shopAccount } from './accounts';
import { computeFee, FeeSchedule } from './fees';
import { LedgerCurrency } from './ledger-currency';
import { compact, Posting } from './postings';

export interface HoldInput {
  shopId: string;
  amount: Amount;
  currency: LedgerCurrency;
  fee: FeeSchedule;
  /** The shop's available balance in the currency, locked. */
  available: Amount;
}

export type HoldPlan =
  | { kind: 'held'; fee: Amount; total: Amount; postings: Posting[] }
  | { kind: 'insufficient'; fee: Amount; total: Amount; available: Amount }
  | { kind: 'rejected'; field: string; reason: string };

/** The first phase of a payout (TigerBeetle's pending transfer): amount + fee move from available to reserved. */
export function planHold(input: HoldInput): HoldPlan {
  const fee = computeFee(input.amount, input.fee, input.currency);
  if (fee.kind === 'rejected') return fee;
  const total = input.amount.plus(fee.fee);
  if (total.greaterThan(input.available))
    return { kind: 'insufficient', fee: fee.fee, total, available: input.available };
  const { shopId, currency } = input;
  return {
    kind: 'held',
    fee: fee.fee,
    total,
    postings: [
      { account: shopAccount(shopId, 'available', currency.code), amount: total.negated() },
      { account: shopAccount(shopId, 'reserved', currency.code), amount: total },
    ],
  };
}

export interface HeldPayout {
  shopId: string;
  provider: string;
  currency: string;
  amount: Amount;
  fee: Amount;
}

/** Second phase, success: the reserve leaves the shop; the provider was paid the amount, the fee is ours. */
export function postHold(h: HeldPayout): Posting[] {
  return [
    { account: shopAccount(h.shopId, 'reserved', h.currency), amount: h.amount.plus(h.fee).negated() },
    { account: { owner: 'clearing', provider: h.provider, currency: h.currency }, amount: h.amount },
    ...(h.fee.isZero() ? [] : [{ account: { owner: 'fee_revenue' as const, currency: h.currency }, amount: h.fee }]),
  ];
}

/** Second phase, failure or cancel: the reserve goes back to available. */
export function voidHold(h: HeldPayout): Posting[] {
  const total = h.amount.plus(h.fee);
  return [
    { account: shopAccount(h.shopId, 'reserved', h.currency), amount: total.negated() },
    { account: shopAccount(h.shopId, 'available', h.currency), amount: total },
  ];
}

/**
 * A payout completed after its hold was voided (the orphan sweep found no event of it in time,
 * decision 277): the money left through the provider all the same, so it leaves the shop now, from
 * available, and what available no longer covers becomes the shop's debt (receivable), never a
 * negative balance (decision 355).
 */
export function postVoidedHold(h: HeldPayout, available: Amount): { postings: Posting[]; owed: Amount } {
  const total = h.amount.plus(h.fee);
  const fromAvailable = MoneyDecimal.min(total, MoneyDecimal.max(available, 0));
  const owed = total.minus(fromAvailable);
  return {
    owed,
    postings: compact([
      { account: shopAccount(h.shopId, 'available', h.currency), amount: fromAvailable.negated() },
      { account: shopAccount(h.shopId, 'receivable', h.currency), amount: owed.negated() },
      { account: { owner: 'clearing', provider: h.provider, currency: h.currency }, amount: h.amount },
      { account: { owner: 'fee_revenue', currency: h.currency }, amount: h.fee },
    ]),
  };
}

/**
 * The idempotency key of a phase of a payout's or refund's hold. The first generation keeps the
 * keys it always had; a hold made again after a void is a new generation with keys of its own, so
 * its postings are booked and not taken for the first one's (decision 355).
 */
export function holdKey(
  kind: 'payout' | 'refund',
  id: string,
  phase: 'reserved' | 'posted' | 'voided',
  generation: number,
): string {
  return `${kind}:${id}:${phase}${generation > 1 ? `:${generation}` : ''}`;
}
