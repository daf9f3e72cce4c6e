import type { PayoutFieldSpec } from '@payments/contracts';
import { containsCardNumber } from './card-in-text';
import { luhnValid } from './luhn';

export { luhnValid };

export interface PayeeError {
  path: string;
  message: string;
}

/** ISO 13616 mod-97 check of an IBAN (upper case, no spaces). */
export function ibanValid(iban: string): boolean {
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    const value = ch >= 'A' && ch <= 'Z' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const digit of value) remainder = (remainder * 10 + (digit.charCodeAt(0) - 48)) % 97;
  }
  return remainder === 1;
}

/** A whole value that is a card number: 12 to 19 digits with a valid check digit. */
export function isCardNumber(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9]{12,19}$/.test(value) && luhnValid(value);
}

/** Checks a format needs beyond its pattern; the pattern alone cannot compute a checksum. */
const EXTRA_CHECKS: Record<string, (value: string) => string | undefined> = {
  pan: (v) => (luhnValid(v) ? undefined : 'is not a valid card number (check digit)'),
  iban: (v) => (ibanValid(v) ? undefined : 'is not a valid IBAN (checksum)'),
};

/** The message of a field that carries a card number where none belongs (decision 258). */
export const NO_CARD_NUMBER = 'must not contain a card number';

/**
 * Payee formats that are not free text for the card-number rule: the card field itself (the
 * vault's), and bank account identifiers and phone numbers, which are numbers of their own kind
 * (decision 51). Every other payee field (a wallet id, a name, a company name, a tax id, a memo, a
 * crypto address) would be stored and published in clear: a card number there is refused.
 */
const NOT_FREE_TEXT = new Set(['pan', 'iban', 'account-number', 'bank-code', 'bic', 'e164']);

/** Only the field's description is echoed, never the value: payee data holds card and account numbers. */
function formatMessage(spec: PayoutFieldSpec): string {
  return `has an invalid format: expected ${spec.description}`;
}

/**
 * Checks a payee object against the fields its payout needs: every missing required field, every
 * free-text field carrying a card number (NO_CARD_NUMBER), every field of the wrong format, and
 * every member the method does not ask for (whitelisting), each named by its JSON path. Fields are members of `payee` (`payee.<name>`), one level deep.
 */
export function checkPayee(fields: readonly PayoutFieldSpec[], payee: unknown): PayeeError[] {
  if (payee === undefined || payee === null) {
    const required = fields.filter((f) => f.required);
    return required.length > 0 ? required.map((f) => ({ path: f.path, message: 'is required' })) : [];
  }
  if (typeof payee !== 'object' || Array.isArray(payee)) return [{ path: 'payee', message: 'must be an object' }];
  const given = payee as Record<string, unknown>;
  const errors: PayeeError[] = [];
  const known = new Set<string>();
  for (const spec of fields) {
    const name = spec.path.startsWith('payee.') ? spec.path.slice('payee.'.length) : spec.path;
    known.add(name);
    const value = given[name];
    if (value === undefined || value === null) {
      if (spec.required) errors.push({ path: spec.path, message: 'is required' });
      continue;
    }
    if (typeof value !== 'string') {
      errors.push({ path: spec.path, message: 'must be a string' });
      continue;
    }
    // Before the format: what was wrong is said first (a card in a name is not a misspelt name).
    if (!NOT_FREE_TEXT.has(spec.format) && containsCardNumber(value)) {
      errors.push({ path: spec.path, message: NO_CARD_NUMBER });
      continue;
    }
    if (spec.pattern !== undefined && !new RegExp(spec.pattern).test(value)) {
      errors.push({ path: spec.path, message: formatMessage(spec) });
      continue;
    }
    const extra = EXTRA_CHECKS[spec.format]?.(value);
    if (extra) errors.push({ path: spec.path, message: extra });
  }
  for (const name of Object.keys(given)) {
    if (!known.has(name)) errors.push({ path: `payee.${name}`, message: 'is not a field of this payout method' });
  }
  return errors;
}
