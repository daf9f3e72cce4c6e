import { Amount, MoneyDecimal } from '@payments/money';
import { shopAccount } from './accounts';
import { computeFee, FeeSchedule } from './fees';
import { LedgerCurrency } from './ledger-currency';
import { compact, Posting } from './postings';

/** The method code of a P2P transaction's fee line (`fee_schedules`; `*` applies when it has none). */
export const P2P_FEE_METHOD = 'p2p';

export interface P2pFeeInput {
  shopId: string;
  /** The P2P transaction's amount, in its currency. */
  gross: Amount;
  currency: LedgerCurrency;
  fee: FeeSchedule;
  /** The shop's available balance in the currency, locked. */
  available: Amount;
}

export type P2pFeePlan =
  | { kind: 'none' }
  | { kind: 'charged'; fee: Amount; fromAvailable: Amount; owed: Amount; postings: Posting[] }
  | { kind: 'rejected'; field: string; reason: string };

/**
 * A completed P2P transaction's fee (decision 312). The P2P money itself never passes through the
 * shop's books (it goes from the sender to the recipient through the provider); only the shop's
 * fee does: taken from available, and what available cannot cover becomes the shop's debt
 * (receivable), never a negative balance. A fee of zero posts nothing.
 */
export function planP2pFee(input: P2pFeeInput): P2pFeePlan {
  const fee = computeFee(input.gross, input.fee, input.currency);
  if (fee.kind === 'rejected') return fee;
  if (fee.fee.isZero()) return { kind: 'none' };
  const { shopId, currency } = input;
  const fromAvailable = MoneyDecimal.min(fee.fee, MoneyDecimal.max(input.available, 0));
  const owed = fee.fee.minus(fromAvailable);
  return {
    kind: 'charged',
    fee: fee.fee,
    fromAvailable,
    owed,
    postings: compact([
      { account: shopAccount(shopId, 'available', currency.code), amount: fromAvailable.negated() },
      { account: shopAccount(shopId, 'receivable', currency.code), amount: owed.negated() },
      { account: { owner: 'fee_revenue', currency: currency.code }, amount: fee.fee },
    ]),
  };
}
