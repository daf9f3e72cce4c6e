import type { MethodCurrency } from '@payments/contracts';
import { amountOf } from '@payments/money';
import { offeredCurrency } from './method-definition';

/** What a payment or payout asks of a method. */
export interface FitTerms {
  currency: string;
  /** The token standard of a crypto token (USDT with TRC20); a currency that names it (USDT_TRON) needs none. */
  tokenStandard?: string | null;
  /** A decimal string. */
  amount: string;
}

/**
 * Which methods fit this payment or payout (issue 31: one rule, one place): the method is
 * enabled and offers the currency — the same currency whichever form it is named in, its token
 * standard included — for this amount, within the currency's minimum and maximum if it has them.
 * Every page and service that filters a shop's methods asks this.
 */
export function methodFits(
  method: { enabled: boolean; currencies: readonly MethodCurrency[] },
  terms: FitTerms,
): boolean {
  if (!method.enabled) return false;
  const offered = offeredCurrency(method, terms.currency, terms.tokenStandard ?? undefined);
  if (!offered) return false;
  const amount = amountOf(terms.amount);
  return (
    (offered.minAmount === undefined || amount.greaterThanOrEqualTo(amountOf(offered.minAmount))) &&
    (offered.maxAmount === undefined || amount.lessThanOrEqualTo(amountOf(offered.maxAmount)))
  );
}
