import Decimal from 'decimal.js';
import { CurrencyInfo, findCurrency } from './currency-registry';

/** Decimal configured for money: enough precision for 18-decimal tokens, never exponent notation. */
export const MoneyDecimal = Decimal.clone({
  precision: 60,
  rounding: Decimal.ROUND_HALF_EVEN,
  toExpNeg: -100,
  toExpPos: 100,
});
export type Amount = InstanceType<typeof MoneyDecimal>;

/** Amounts are stored as numeric(38, 18): 18 digits before the point leave room to spare. */
export const MAX_INTEGER_DIGITS = 18;

/** A plain decimal: digits, optionally one dot and more digits. No sign, exponent, spaces or leading zeros. */
const AMOUNT_PATTERN = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

export type AmountParse = { kind: 'ok'; amount: Amount } | { kind: 'invalid'; reason: string };

/**
 * Parses an amount as it arrives on the wire. Money is never a JS number: a number in JSON would
 * already have lost precision before we saw it, so only strings are accepted.
 */
export function parseAmount(raw: unknown, currency?: CurrencyInfo): AmountParse {
  if (typeof raw !== 'string') return { kind: 'invalid', reason: 'must be a decimal string, e.g. "100.50"' };
  if (!AMOUNT_PATTERN.test(raw)) {
    return {
      kind: 'invalid',
      reason:
        'must be a plain decimal string of digits with an optional dot: no sign, exponent, spaces or leading zeros',
    };
  }
  const [whole, fraction = ''] = raw.split('.');
  if (whole.length > MAX_INTEGER_DIGITS)
    return { kind: 'invalid', reason: `is too large: at most ${MAX_INTEGER_DIGITS} digits before the decimal point` };
  const amount = new MoneyDecimal(raw);
  if (amount.isZero()) return { kind: 'invalid', reason: 'must be greater than zero' };
  // Counted on the text, not the value: "100.500" for USD is refused like "100.505".
  if (currency && fraction.length > currency.scale) {
    return { kind: 'invalid', reason: `has more than ${currency.scale} decimal places allowed for ${currency.code}` };
  }
  return { kind: 'ok', amount };
}

/** Reads a trusted decimal string (from our database or our own events); throws on garbage. */
export function amountOf(value: string | Amount): Amount {
  return value instanceof MoneyDecimal ? value : new MoneyDecimal(value);
}

/** The canonical wire form: plain notation, no trailing zeros beyond what the value needs. */
export function formatAmount(amount: Amount | string): string {
  return amountOf(amount).toFixed();
}

export function sameAmount(a: Amount | string, b: Amount | string): boolean {
  return amountOf(a).equals(amountOf(b));
}

/**
 * The amount as merchants read it: fiat at its currency's scale ("100.00"), crypto without trailing
 * zeros (a scale of 18 would bury the value). Unknown codes fall back to the plain form.
 */
export function formatInCurrency(amount: Amount | string, currencyCode: string): string {
  const found = findCurrency(currencyCode);
  const value = amountOf(amount);
  if (found.kind === 'found' && found.currency.kind === 'fiat' && value.decimalPlaces() <= found.currency.scale) {
    return value.toFixed(found.currency.scale);
  }
  return value.toFixed();
}
