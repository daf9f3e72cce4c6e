import { toTiyin } from './tiyin';

/** Where Payme's checkout lives: the payer's Payme app or web page. */
export const PAYME_CHECKOUT_URL = 'https://checkout.paycom.uz';
/** Payme takes sums only. */
export const PAYME_CURRENCY = 'UZS';

/**
 * Payme's checkout link (its "GET" checkout): `<base>/<base64 of "m=<merchant id>;ac.order_id=<order
 * id>;a=<amount in tiyin>[;c=<return url>]">`. Payme then calls our Merchant API with
 * `account.order_id` = the order id. `;` separates the parameters, so one inside the return URL is
 * percent-encoded (the same URL to a browser).
 */
export function paymeCheckoutLink(p: {
  merchantId: string;
  orderId: string;
  /** Decimal string in sums, as the order carries it. */
  amount: string;
  returnUrl?: string;
  /** https://checkout.paycom.uz, or a stand-in for it. */
  base?: string;
}): string {
  const parts = [`m=${p.merchantId}`, `ac.order_id=${p.orderId}`, `a=${toTiyin(p.amount)}`];
  if (p.returnUrl) parts.push(`c=${p.returnUrl.replaceAll(';', '%3B')}`);
  const base = (p.base ?? PAYME_CHECKOUT_URL).replace(/\/+$/, '');
  return `${base}/${Buffer.from(parts.join(';'), 'utf8').toString('base64')}`;
}
