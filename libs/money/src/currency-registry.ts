/**
 * The currencies the service accepts, with the number of decimals each allows.
 *
 * Three forms exist on the wire (spec 2.1): a fiat ISO 4217 code, a `crypto_currency_code`
 * (a coin or token symbol, with `tokenStandard` naming the network of a token) and an
 * `asset_code` that already names the network (so it never takes a `tokenStandard`).
 * Asset codes get renamed by the provider; `assetCodeAliases` keeps the old names working.
 */
export type TokenStandard = 'TRC20' | 'ERC20' | 'BEP20';
export const TOKEN_STANDARDS: readonly TokenStandard[] = ['TRC20', 'ERC20', 'BEP20'];

export type CurrencyKind = 'fiat' | 'crypto_native' | 'crypto_token' | 'asset';

export interface CurrencyInfo {
  readonly code: string;
  readonly kind: CurrencyKind;
  /** Maximum number of decimals an amount in this currency may carry. */
  readonly scale: number;
  /** For tokens: the standards the token exists on. */
  readonly tokenStandards?: readonly TokenStandard[];
  /** For asset codes: the coin and the network the code stands for. */
  readonly asset?: { readonly coin: string; readonly tokenStandard?: TokenStandard };
}

const fiat = (code: string, scale = 2): CurrencyInfo => ({ code, kind: 'fiat', scale });

const FIAT: CurrencyInfo[] = [
  ...[
    'USD',
    'EUR',
    'GBP',
    'CHF',
    'CAD',
    'AUD',
    'NZD',
    'SEK',
    'NOK',
    'DKK',
    'PLN',
    'CZK',
    'HUF',
    'RON',
    'BGN',
    'TRY',
    'RUB',
    'UAH',
    'KZT',
    'UZS',
    'KGS',
    'TJS',
    'AZN',
    'GEL',
    'AMD',
    'BYN',
    'MDL',
    'INR',
    'PKR',
    'BDT',
    'LKR',
    'NPR',
    'CNY',
    'HKD',
    'SGD',
    'MYR',
    'THB',
    'PHP',
    'IDR',
    'TWD',
    'AED',
    'SAR',
    'QAR',
    'ILS',
    'EGP',
    'MAD',
    'NGN',
    'KES',
    'GHS',
    'ZAR',
    'BRL',
    'MXN',
    'ARS',
    'COP',
    'PEN',
    'MNT',
    'AFN',
    'TMT',
    'IRR',
  ].map((c) => fiat(c)),
  ...['JPY', 'KRW', 'VND', 'CLP', 'ISK', 'UGX', 'XAF', 'XOF', 'PYG', 'RWF'].map((c) => fiat(c, 0)),
  ...['BHD', 'KWD', 'OMR', 'JOD', 'TND', 'LYD', 'IQD'].map((c) => fiat(c, 3)),
];

const CRYPTO: CurrencyInfo[] = [
  { code: 'BTC', kind: 'crypto_native', scale: 8 },
  { code: 'ETH', kind: 'crypto_native', scale: 18 },
  { code: 'LTC', kind: 'crypto_native', scale: 8 },
  { code: 'TRX', kind: 'crypto_native', scale: 6 },
  { code: 'BNB', kind: 'crypto_native', scale: 18 },
  { code: 'TON', kind: 'crypto_native', scale: 9 },
  { code: 'USDT', kind: 'crypto_token', scale: 6, tokenStandards: ['TRC20', 'ERC20', 'BEP20'] },
  { code: 'USDC', kind: 'crypto_token', scale: 6, tokenStandards: ['TRC20', 'ERC20', 'BEP20'] },
];

const ASSETS: CurrencyInfo[] = [
  { code: 'BTC_BITCOIN', kind: 'asset', scale: 8, asset: { coin: 'BTC' } },
  { code: 'ETH_ETHEREUM', kind: 'asset', scale: 18, asset: { coin: 'ETH' } },
  { code: 'USDT_TRON', kind: 'asset', scale: 6, asset: { coin: 'USDT', tokenStandard: 'TRC20' } },
  { code: 'USDT_ETHEREUM', kind: 'asset', scale: 6, asset: { coin: 'USDT', tokenStandard: 'ERC20' } },
  { code: 'USDT_BSC', kind: 'asset', scale: 6, asset: { coin: 'USDT', tokenStandard: 'BEP20' } },
  { code: 'USDC_ETHEREUM', kind: 'asset', scale: 6, asset: { coin: 'USDC', tokenStandard: 'ERC20' } },
];

/**
 * Asset codes renamed in the 13.05.2026 release. The spec does not list the renames, so this
 * table holds the names this service used before its current ones; an old code is accepted and
 * answered with the current one.
 */
export const ASSET_CODE_ALIASES: Readonly<Record<string, string>> = {
  USDTTRC: 'USDT_TRON',
  USDTERC: 'USDT_ETHEREUM',
  USDTBEP: 'USDT_BSC',
  USDCERC: 'USDC_ETHEREUM',
  BTC_MAINNET: 'BTC_BITCOIN',
  ETH_MAINNET: 'ETH_ETHEREUM',
};

const REGISTRY: ReadonlyMap<string, CurrencyInfo> = new Map([...FIAT, ...CRYPTO, ...ASSETS].map((c) => [c.code, c]));

export type CurrencyLookup =
  { kind: 'found'; currency: CurrencyInfo; renamedFrom?: string } | { kind: 'unknown'; code: string };

/** Finds a currency by its code, following asset code renames. Codes are case-sensitive upper case. */
export function findCurrency(code: string): CurrencyLookup {
  const direct = REGISTRY.get(code);
  if (direct) return { kind: 'found', currency: direct };
  const current = ASSET_CODE_ALIASES[code];
  const renamed = current ? REGISTRY.get(current) : undefined;
  if (renamed) return { kind: 'found', currency: renamed, renamedFrom: code };
  return { kind: 'unknown', code };
}

export function allCurrencies(): CurrencyInfo[] {
  return [...REGISTRY.values()];
}

export function isCrypto(currency: CurrencyInfo): boolean {
  return currency.kind !== 'fiat';
}
