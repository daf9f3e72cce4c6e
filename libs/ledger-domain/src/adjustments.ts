import { Amount, MoneyDecimal } from '@payments/money';
import { shopAccount } from './accounts';
import { bookCurrency, LedgerCurrency } from './ledger-currency';
import { Posting } from './postings';
import { SettingError } from './settings';

/** A signed decimal string: `"25.00"`, `"-10.5"`, `"+3"`; never a number or an exponent. */
const SIGNED_DECIMAL = /^[+-]?(0|[1-9][0-9]*)(\.[0-9]+)?$/;
/** The books keep numeric(38, 18): 20 digits before the point at most. */
const MAX_INTEGER_DIGITS = 20;
export const MAX_ADJUSTMENT_REASON = 500;

export interface AdjustmentInput {
  currency: string;
  amount: string;
  reason: string;
}

export interface CheckedAdjustment {
  currency: LedgerCurrency;
  amount: Amount;
  reason: string;
}

/**
 * The rules of an operator's manual adjustment (decision 308), the same in the backoffice (a 400
 * naming each field, nothing sent) and in the ledger (refused as invalid, nothing posted): a books
 * currency of the registry, a signed amount other than zero with at most the currency's scale, and a
 * reason that is not blank.
 */
export function adjustmentErrors(input: AdjustmentInput): SettingError[] {
  return checkAdjustment(input).errors;
}

export function checkAdjustment(input: AdjustmentInput): { errors: SettingError[]; checked?: CheckedAdjustment } {
  const errors: SettingError[] = [];
  const found = typeof input.currency === 'string' ? bookCurrency(input.currency) : null;
  let currency: LedgerCurrency | null = null;
  if (found?.kind === 'ok' && found.currency.code === input.currency) currency = found.currency;
  else
    errors.push({
      path: 'currency',
      message:
        found?.kind === 'ok'
          ? `must be written ${found.currency.code} (a books currency: USD, BTC, USDT-TRC20)`
          : `${found?.reason ?? 'must be a string'} (a books currency: USD, BTC, USDT-TRC20)`,
    });
  let amount: Amount | null = null;
  if (typeof input.amount !== 'string' || !SIGNED_DECIMAL.test(input.amount))
    errors.push({ path: 'amount', message: 'must be a signed decimal string ("25.00" credits, "-10.50" debits)' });
  else {
    const d = new MoneyDecimal(input.amount);
    if (d.isZero()) errors.push({ path: 'amount', message: 'must not be zero' });
    else if (d.abs().truncated().toFixed().length > MAX_INTEGER_DIGITS)
      errors.push({ path: 'amount', message: `must have at most ${MAX_INTEGER_DIGITS} digits before the point` });
    else if (currency && d.decimalPlaces() > currency.scale)
      errors.push({ path: 'amount', message: `must have at most ${currency.scale} decimal places (${currency.code})` });
    else amount = d;
  }
  const reason = typeof input.reason === 'string' ? input.reason.trim() : '';
  if (!reason) errors.push({ path: 'reason', message: 'must say why (it is kept with the adjustment and audited)' });
  else if (reason.length > MAX_ADJUSTMENT_REASON)
    errors.push({ path: 'reason', message: `must be at most ${MAX_ADJUSTMENT_REASON} characters` });
  return errors.length === 0 && currency && amount ? { errors, checked: { currency, amount, reason } } : { errors };
}

export type AdjustmentPlan =
  { kind: 'posted'; postings: Posting[]; availableAfter: Amount } | { kind: 'insufficient'; available: Amount };

/**
 * An adjustment moves the shop's available balance against the service's `adjustments` account of
 * the currency: a credit raises available, a debit lowers it, never below zero (a debit the locked
 * available balance cannot cover is refused and posts nothing).
 */
export function planAdjustment(shopId: string, a: CheckedAdjustment, available: Amount): AdjustmentPlan {
  const availableAfter = available.plus(a.amount);
  if (availableAfter.lessThan(0)) return { kind: 'insufficient', available };
  return {
    kind: 'posted',
    availableAfter,
    postings: [
      { account: shopAccount(shopId, 'available', a.currency.code), amount: a.amount },
      { account: { owner: 'adjustments', currency: a.currency.code }, amount: a.amount.negated() },
    ],
  };
}
