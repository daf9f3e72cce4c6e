import { Amount, MoneyDecimal } from '@payments/money';
import { bookCurrency, LedgerCurrency } from './ledger-currency';

/** A bad member of an operator's setting: its path and why (the problem's `errors[]`). */
export interface SettingError {
  path: string;
  message: string;
}

const DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/** The books' currency of a code (`USD`, `USDT-TRC20`), or the error naming `path`. */
function currencyAt(code: string, path: string, errors: SettingError[]): LedgerCurrency | null {
  const found = bookCurrency(code);
  if (found.kind === 'ok' && found.currency.code === code) return found.currency;
  errors.push({
    path,
    message:
      found.kind === 'invalid'
        ? `${found.reason} (a books currency: USD, BTC, USDT-TRC20)`
        : `must be written ${found.currency.code} (a books currency: USD, BTC, USDT-TRC20)`,
  });
  return null;
}

function decimalAt(value: string, path: string, errors: SettingError[], scale?: number): Amount | null {
  if (!DECIMAL.test(value)) {
    errors.push({ path, message: 'must be a non-negative decimal string ("2.5", "0.30")' });
    return null;
  }
  const d = new MoneyDecimal(value);
  if (scale !== undefined && d.decimalPlaces() > scale) {
    errors.push({ path, message: `must have at most ${scale} decimal places (the currency's scale)` });
    return null;
  }
  return d;
}

/**
 * The rules of a fee line (decision 303): a currency of the registry, percent 0–100, fixed and
 * minimum non-negative with at most the currency's scale. A fixed part or minimum above some
 * amount is allowed here: the booking of such an amount is refused (computeFee, `fee`).
 */
export function feeScheduleErrors(input: {
  currency: string;
  percent: string;
  fixed: string;
  minimum: string;
}): SettingError[] {
  const errors: SettingError[] = [];
  const currency = currencyAt(input.currency, 'currency', errors);
  const percent = decimalAt(input.percent, 'percent', errors, 6);
  if (percent && percent.greaterThan(100)) errors.push({ path: 'percent', message: 'must be between 0 and 100' });
  decimalAt(input.fixed, 'fixed', errors, currency?.scale);
  decimalAt(input.minimum, 'minimum', errors, currency?.scale);
  return errors;
}

/**
 * The rules of a rate (decision 303): two different currencies of the registry, a rate above zero
 * with at most 18 decimals, `validFrom` a time and `validTo`, when given, after it.
 */
export function rateErrors(input: {
  base: string;
  quote: string;
  rate: string;
  validFrom: string;
  validTo?: string | null;
}): SettingError[] {
  const errors: SettingError[] = [];
  const base = currencyAt(input.base, 'base', errors);
  const quote = currencyAt(input.quote, 'quote', errors);
  if (base && quote && base.code === quote.code) errors.push({ path: 'quote', message: 'must differ from base' });
  const rate = decimalAt(input.rate, 'rate', errors, 18);
  if (rate && !rate.greaterThan(0)) errors.push({ path: 'rate', message: 'must be greater than 0' });
  const from = Date.parse(input.validFrom);
  if (Number.isNaN(from)) errors.push({ path: 'validFrom', message: 'must be an ISO 8601 date-time' });
  if (input.validTo != null) {
    const to = Date.parse(input.validTo);
    if (Number.isNaN(to)) errors.push({ path: 'validTo', message: 'must be an ISO 8601 date-time' });
    else if (!Number.isNaN(from) && to <= from) errors.push({ path: 'validTo', message: 'must be after validFrom' });
  }
  return errors;
}

/** The most a settlement delay may be: a year. */
export const MAX_SETTLEMENT_DELAY_SECONDS = 31_536_000;

/** The rules of a settlement delay: whole seconds, 0 (at once) to a year. */
export function settlementDelayErrors(seconds: unknown): SettingError[] {
  return Number.isInteger(seconds) && (seconds as number) >= 0 && (seconds as number) <= MAX_SETTLEMENT_DELAY_SECONDS
    ? []
    : [
        {
          path: 'settlementDelaySeconds',
          message: `must be a whole number of seconds from 0 to ${MAX_SETTLEMENT_DELAY_SECONDS}`,
        },
      ];
}
