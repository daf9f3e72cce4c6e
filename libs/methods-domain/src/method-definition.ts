import type { MethodCurrency, MethodDefinition, PayoutFieldSpec, WalletType } from '@payments/contracts';
import { amountOf, checkTokenStandard, currencyIdentity, findCurrency, isCrypto, parseAmount } from '@payments/money';
import { requiredPayoutFields } from './payout-fields';

export interface DefinitionError {
  path: string;
  message: string;
}

/** Merchant-facing codes: lower case, digits, `-` and `_`, e.g. `uzcard-payout`. */
export const METHOD_CODE_PATTERN = /^[a-z0-9][a-z0-9_-]{1,63}$/;
export const PROVIDER_CODE_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/**
 * Checks a whole method definition (a new one, or an existing one with an operator's change
 * applied). Currencies are expected in their canonical form (renamed asset codes already mapped).
 */
export function checkMethodDefinition(def: MethodDefinition): DefinitionError[] {
  const errors: DefinitionError[] = [];
  if (!METHOD_CODE_PATTERN.test(def.code))
    errors.push({
      path: 'code',
      message: 'must be 2 to 64 lower-case letters, digits, "-" or "_", starting with a letter or digit',
    });
  if (!PROVIDER_CODE_PATTERN.test(def.provider))
    errors.push({ path: 'provider', message: 'must be a provider code: lower-case letters, digits, "-" or "_"' });
  if (def.instrumentType === 'card') {
    if (!def.cardBrands || def.cardBrands.length === 0)
      errors.push({ path: 'cardBrands', message: 'a card method needs at least one card brand' });
    else if (new Set(def.cardBrands).size !== def.cardBrands.length)
      errors.push({ path: 'cardBrands', message: 'must not repeat a brand' });
  } else if (def.cardBrands && def.cardBrands.length > 0) {
    errors.push({ path: 'cardBrands', message: 'applies only to card methods' });
  }
  if (def.instrumentType !== 'wallet' && def.walletTypes && def.walletTypes.length > 0) {
    errors.push({ path: 'walletTypes', message: 'applies only to wallet methods' });
  } else if (def.walletTypes && new Set(def.walletTypes).size !== def.walletTypes.length) {
    errors.push({ path: 'walletTypes', message: 'must not repeat a wallet type' });
  }
  if (def.currencies.length === 0) errors.push({ path: 'currencies', message: 'a method needs at least one currency' });
  const seen = new Set<string>();
  def.currencies.forEach((c, i) => errors.push(...checkCurrency(def, c, `currencies[${i}]`, seen)));
  return errors;
}

function checkCurrency(def: MethodDefinition, c: MethodCurrency, path: string, seen: Set<string>): DefinitionError[] {
  const found = findCurrency(c.currency);
  if (found.kind !== 'found')
    return [{ path: `${path}.currency`, message: `"${c.currency.slice(0, 32)}" is not a supported currency` }];
  const errors: DefinitionError[] = [];
  const crypto = isCrypto(found.currency);
  if (def.instrumentType === 'crypto' && !crypto)
    errors.push({ path: `${path}.currency`, message: 'a crypto method offers only cryptocurrencies' });
  if (def.instrumentType !== 'crypto' && crypto)
    errors.push({
      path: `${path}.currency`,
      message: `a ${def.instrumentType} method offers only fiat currencies; use instrumentType crypto`,
    });
  const ts = checkTokenStandard(found.currency, c.tokenStandard);
  if (ts.kind === 'invalid') errors.push({ path: `${path}.tokenStandard`, message: ts.reason });
  const identity = currencyIdentity(c.currency, c.tokenStandard);
  if (seen.has(identity)) errors.push({ path: `${path}.currency`, message: 'is offered twice by this method' });
  seen.add(identity);
  const min = c.minAmount === undefined ? undefined : parseAmount(c.minAmount, found.currency);
  const max = c.maxAmount === undefined ? undefined : parseAmount(c.maxAmount, found.currency);
  if (min?.kind === 'invalid') errors.push({ path: `${path}.minAmount`, message: min.reason });
  if (max?.kind === 'invalid') errors.push({ path: `${path}.maxAmount`, message: max.reason });
  if (min?.kind === 'ok' && max?.kind === 'ok' && min.amount.greaterThan(max.amount)) {
    errors.push({ path: `${path}.minAmount`, message: 'must not be greater than maxAmount' });
  }
  return errors;
}

/** A stored method as the resolution needs it. */
export interface ResolvableMethod extends MethodDefinition {
  enabled: boolean;
}

export interface PayoutRequestTerms {
  currency: string;
  tokenStandard?: string;
  walletType?: WalletType;
  /** Absent when only the fields are asked for (`POST /payouts/fields`). */
  amount?: string;
}

export type PayoutResolution =
  | { kind: 'resolved'; currency: MethodCurrency; fields: PayoutFieldSpec[] }
  | { kind: 'rejected'; path: string; detail: string };

/** The offered currency a payout names, whichever form it uses: USDT with TRC20 is USDT_TRON. */
export function offeredCurrency(
  method: { currencies: readonly MethodCurrency[] },
  currency: string,
  tokenStandard?: string,
): MethodCurrency | undefined {
  const wanted = currencyIdentity(currency, tokenStandard);
  return method.currencies.find((c) => currencyIdentity(c.currency, c.tokenStandard) === wanted);
}

/**
 * Can this method carry a payout with these terms, and which payee fields does it need? `path`
 * of a refusal uses the names of the create-payout body (`payout.cost.currency`, …).
 */
export function resolvePayout(method: ResolvableMethod, terms: PayoutRequestTerms): PayoutResolution {
  if (!method.enabled)
    return { kind: 'rejected', path: 'payout.method', detail: `payout method "${method.code}" is disabled` };
  const offered = offeredCurrency(method, terms.currency, terms.tokenStandard);
  if (!offered) {
    const named = terms.tokenStandard ? `${terms.currency} (${terms.tokenStandard})` : terms.currency;
    return {
      kind: 'rejected',
      path: 'payout.cost.currency',
      detail: `payout method "${method.code}" does not offer ${named}`,
    };
  }
  if (terms.walletType !== undefined) {
    if (method.instrumentType !== 'wallet')
      return {
        kind: 'rejected',
        path: 'walletType',
        detail: `walletType applies only to wallet methods; "${method.code}" is ${method.instrumentType}`,
      };
    if (!(method.walletTypes ?? []).includes(terms.walletType)) {
      return {
        kind: 'rejected',
        path: 'walletType',
        detail: `payout method "${method.code}" does not offer the wallet type ${terms.walletType}`,
      };
    }
  }
  if (terms.amount !== undefined) {
    const amount = amountOf(terms.amount);
    if (offered.minAmount !== undefined && amount.lessThan(amountOf(offered.minAmount))) {
      return {
        kind: 'rejected',
        path: 'payout.cost.amount',
        detail: `is below the minimum of ${offered.minAmount} ${offered.currency} of payout method "${method.code}"`,
      };
    }
    if (offered.maxAmount !== undefined && amount.greaterThan(amountOf(offered.maxAmount))) {
      return {
        kind: 'rejected',
        path: 'payout.cost.amount',
        detail: `is above the maximum of ${offered.maxAmount} ${offered.currency} of payout method "${method.code}"`,
      };
    }
  }
  const fields = requiredPayoutFields({
    instrumentType: method.instrumentType,
    currency: offered.currency,
    tokenStandard: offered.tokenStandard ?? terms.tokenStandard,
    walletType: terms.walletType,
    cardBrands: method.cardBrands,
  });
  return { kind: 'resolved', currency: offered, fields };
}
