import { Amount } from '@payments/money';
import { shopAccount } from './accounts';
import { LedgerCurrency, roundDown } from './ledger-currency';
import { compact, Posting } from './postings';

/** Where a refund's debit is held from: available, or suspense while the order's credit waits for a rate. */
export type RefundHoldSource = 'available' | 'suspense';

export interface RefundHoldInput {
  shopId: string;
  /** The refunded amount, in the order currency. */
  amount: Amount;
  orderCurrency: LedgerCurrency;
  /** Where the order's credit went: the balance currency, or the order currency while in suspense. */
  creditCurrency: LedgerCurrency;
  /** The original credit's rate (null: same currency, or the credit still in suspense). */
  rate: Amount | null;
  source: RefundHoldSource;
  /** The shop's balance of `source` in `creditCurrency`, locked. */
  balance: Amount;
}

export type RefundHoldPlan =
  | { kind: 'held'; debit: Amount; postings: Posting[] }
  | { kind: 'insufficient'; debit: Amount; balance: Amount }
  | { kind: 'rejected'; field: string; reason: string };

/** A refund's hold, as the second phase needs it. */
export interface HeldRefund {
  shopId: string;
  provider: string;
  orderCurrency: string;
  /** In the order currency: what goes back through the provider. */
  amount: Amount;
  creditCurrency: string;
  /** In the credit currency: what the shop gives back, held in `reserved`. */
  debit: Amount;
  source: RefundHoldSource;
}

/**
 * The first phase of a refund (decision 276): its debit, at the original credit's rate and rounded
 * down as that credit was, moves from the shop's available balance (or suspense) to reserved, or
 * the refund is refused. Pending money is not refunded from: it may be retried once it settles.
 */
export function planRefundHold(input: RefundHoldInput): RefundHoldPlan {
  const { shopId, amount, orderCurrency: from, creditCurrency: to } = input;
  if (!amount.greaterThan(0)) return { kind: 'rejected', field: 'amount', reason: 'must be greater than zero' };
  const debit = from.code === to.code || !input.rate ? amount : roundDown(amount.times(input.rate), to);
  if (debit.greaterThan(input.balance)) return { kind: 'insufficient', debit, balance: input.balance };
  return {
    kind: 'held',
    debit,
    postings: [
      { account: shopAccount(shopId, input.source, to.code), amount: debit.negated() },
      { account: shopAccount(shopId, 'reserved', to.code), amount: debit },
    ],
  };
}

/** Second phase, the refund booked: the reserve leaves the shop, back through the provider's clearing. */
export function postRefundHold(h: HeldRefund): Posting[] {
  const postings: Posting[] = [
    { account: shopAccount(h.shopId, 'reserved', h.creditCurrency), amount: h.debit.negated() },
    { account: { owner: 'clearing', provider: h.provider, currency: h.orderCurrency }, amount: h.amount },
  ];
  if (h.orderCurrency !== h.creditCurrency)
    postings.push(
      { account: { owner: 'fx', currency: h.orderCurrency }, amount: h.amount.negated() },
      { account: { owner: 'fx', currency: h.creditCurrency }, amount: h.debit },
    );
  return compact(postings);
}

/** Second phase, the refund never created: the reserve goes back where it came from. */
export function voidRefundHold(h: HeldRefund): Posting[] {
  return [
    { account: shopAccount(h.shopId, 'reserved', h.creditCurrency), amount: h.debit.negated() },
    { account: shopAccount(h.shopId, h.source, h.creditCurrency), amount: h.debit },
  ];
}
