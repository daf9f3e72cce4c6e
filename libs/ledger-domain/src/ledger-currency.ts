import { Amount, findCurrency, MoneyDecimal } from '@payments/money';

/** A currency as the books keep it: its code, with the token standard when it is a token. */
export interface LedgerCurrency {
  /** `USD`, `BTC`, `USDT-TRC20`: a token on another network is another currency. */
  readonly code: string;
  readonly scale: number;
}

export type LedgerCurrencyLookup = { kind: 'ok'; currency: LedgerCurrency } | { kind: 'invalid'; reason: string };

/**
 * The books' currency of a wire currency: `USDT` with `TRC20` and the asset code `USDT_TRON` are
 * the same money (`USDT-TRC20`), `USDT` on ERC20 is another. The scale is the registry's.
 */
export function ledgerCurrency(code: string, tokenStandard?: string | null): LedgerCurrencyLookup {
  const found = findCurrency(code);
  if (found.kind === 'unknown') return { kind: 'invalid', reason: `currency ${code} is not in the currency registry` };
  const c = found.currency;
  switch (c.kind) {
    case 'fiat':
    case 'crypto_native':
      return { kind: 'ok', currency: { code: c.code, scale: c.scale } };
    case 'asset':
      return {
        kind: 'ok',
        currency: {
          code: c.asset?.tokenStandard ? `${c.asset.coin}-${c.asset.tokenStandard}` : c.asset!.coin,
          scale: c.scale,
        },
      };
    case 'crypto_token':
      if (!tokenStandard || !c.tokenStandards?.includes(tokenStandard as never))
        return {
          kind: 'invalid',
          reason: `token ${c.code} needs one of the token standards ${c.tokenStandards?.join(', ')}`,
        };
      return { kind: 'ok', currency: { code: `${c.code}-${tokenStandard}`, scale: c.scale } };
  }
}

/** Whether `amount` carries no more decimals than the currency allows. */
export function fitsScale(amount: Amount, currency: LedgerCurrency): boolean {
  return amount.decimalPlaces() <= currency.scale;
}

/** Rounds down to the currency's scale: the books never credit a fraction of a minor unit. */
export function roundDown(amount: Amount, currency: LedgerCurrency): Amount {
  return amount.toDecimalPlaces(currency.scale, MoneyDecimal.ROUND_DOWN);
}

/** The currency of a code the books wrote (`USD`, `USDT-TRC20`), with its registry scale. */
export function bookCurrency(code: string): LedgerCurrencyLookup {
  const [coin, token] = code.split('-', 2);
  return ledgerCurrency(coin, token);
}
