import { CurrencyInfo, findCurrency, TOKEN_STANDARDS, TokenStandard } from './currency-registry';

export type TokenStandardCheck = { kind: 'ok'; tokenStandard?: TokenStandard } | { kind: 'invalid'; reason: string };

/**
 * The rule of `cost.tokenStandard` (spec 2.1): required for a token-based coin given as a
 * `crypto_currency_code`, refused for a native coin and for fiat, optional for an `asset_code`
 * (which already names the network; if given it must agree with it).
 */
export function checkTokenStandard(currency: CurrencyInfo, tokenStandard: unknown): TokenStandardCheck {
  if (tokenStandard !== undefined && tokenStandard !== null) {
    if (typeof tokenStandard !== 'string' || !(TOKEN_STANDARDS as readonly string[]).includes(tokenStandard)) {
      return { kind: 'invalid', reason: `is not a known token standard; use one of ${TOKEN_STANDARDS.join(', ')}` };
    }
  }
  const ts = tokenStandard as TokenStandard | undefined | null;
  switch (currency.kind) {
    case 'fiat':
      return ts
        ? { kind: 'invalid', reason: `applies only to token-based cryptocurrencies, not to ${currency.code}` }
        : { kind: 'ok' };
    case 'crypto_native':
      return ts
        ? { kind: 'invalid', reason: `must not be given for the native coin ${currency.code}` }
        : { kind: 'ok' };
    case 'crypto_token':
      if (!ts)
        return {
          kind: 'invalid',
          reason: `is required for the token ${currency.code} (one of ${currency.tokenStandards?.join(', ')})`,
        };
      if (!currency.tokenStandards?.includes(ts))
        return { kind: 'invalid', reason: `${currency.code} is not available as ${ts}` };
      return { kind: 'ok', tokenStandard: ts };
    case 'asset':
      if (ts && ts !== currency.asset?.tokenStandard) {
        return {
          kind: 'invalid',
          reason: `does not match the asset code ${currency.code}, which already names its network`,
        };
      }
      return { kind: 'ok' };
    default: {
      const never: never = currency.kind;
      throw new Error(`unknown currency kind ${String(never)}`);
    }
  }
}

/** The currency code as we answer it: renamed asset codes are answered with their current name. */
export function canonicalCurrency(code: string): string {
  const found = findCurrency(code);
  return found.kind === 'found' ? found.currency.code : code;
}

/**
 * What a currency really is, whichever form names it: `USDT` with `TRC20` and the asset code
 * `USDT_TRON` are the same money. Used to compare a provider's report with the order.
 */
export function currencyIdentity(code: string, tokenStandard?: string | null): string {
  const found = findCurrency(code);
  if (found.kind === 'unknown') return `${code}/${tokenStandard ?? ''}`;
  const c = found.currency;
  if (c.kind === 'asset') return `${c.asset?.coin}/${c.asset?.tokenStandard ?? ''}`;
  if (c.kind === 'crypto_token') return `${c.code}/${tokenStandard ?? ''}`;
  return `${c.code}/`;
}
