import { SettingError } from './settings';
import { bookCurrency } from './ledger-currency';

export const MAX_RELEASE_REASON = 500;

/**
 * The rule of an admin's release of a parked credit (decision 344), the same in the backoffice (a
 * 400 naming the field, nothing sent) and in the ledger (refused as invalid, nothing changed): a
 * reason that is not blank, at most 500 characters.
 */
export function releaseErrors(input: { reason?: unknown }): SettingError[] {
  const reason = typeof input.reason === 'string' ? input.reason.trim() : '';
  if (!reason)
    return [{ path: 'reason', message: 'must say what was fixed (it is kept with the release and audited)' }];
  if (reason.length > MAX_RELEASE_REASON)
    return [{ path: 'reason', message: `must be at most ${MAX_RELEASE_REASON} characters` }];
  return [];
}

/**
 * An amount as people read it (the console): padded with zeros to the scale of its books currency
 * (`105.2` USD → `105.20`, `36.0256` USDT-TRC20 → `36.025600`), never rounded. An amount finer than
 * the scale (a rate's product before rounding) or of a currency the registry does not know is shown
 * as it is.
 */
export function atScale(amount: string, currency: string): string {
  const found = bookCurrency(currency);
  const m = /^(-?)([0-9]+)(?:\.([0-9]*))?$/.exec(amount);
  if (found.kind !== 'ok' || !m) return amount;
  const [, sign, whole, fraction = ''] = m;
  const scale = found.currency.scale;
  if (fraction.length > scale) return amount;
  return scale === 0 ? `${sign}${whole}` : `${sign}${whole}.${fraction.padEnd(scale, '0')}`;
}
