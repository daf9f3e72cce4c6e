import { Amount, MoneyDecimal } from '@payments/money';
import { LedgerCurrency } from './ledger-currency';

/** A shop's fee for one method, in the operation's currency: percent of the amount plus fixed, at least minimum. */
export interface FeeSchedule {
  percent: Amount;
  fixed: Amount;
  minimum: Amount;
}

export const NO_FEE: FeeSchedule = {
  percent: new MoneyDecimal(0),
  fixed: new MoneyDecimal(0),
  minimum: new MoneyDecimal(0),
};

export type FeeResult = { kind: 'ok'; fee: Amount; net: Amount } | { kind: 'rejected'; field: string; reason: string };

/**
 * The fee of an operation of `gross`: percent of it plus the fixed part, never below the minimum,
 * rounded half up to the currency's scale (a fee is never a fraction of a minor unit). A fee above
 * the amount is refused: the books never turn a payment into a debt of the shop.
 */
export function computeFee(gross: Amount, schedule: FeeSchedule, currency: LedgerCurrency): FeeResult {
  if (gross.isNegative() || gross.isZero())
    return { kind: 'rejected', field: 'amount', reason: `must be greater than zero, got ${gross.toFixed()}` };
  const raw = MoneyDecimal.max(gross.times(schedule.percent).dividedBy(100).plus(schedule.fixed), schedule.minimum);
  const fee = raw.toDecimalPlaces(currency.scale, MoneyDecimal.ROUND_HALF_UP);
  if (fee.greaterThan(gross))
    return {
      kind: 'rejected',
      field: 'fee',
      reason: `the fee ${fee.toFixed()} ${currency.code} exceeds the amount ${gross.toFixed()} ${currency.code}`,
    };
  return { kind: 'ok', fee, net: gross.minus(fee) };
}
