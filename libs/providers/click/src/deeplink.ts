/**
 * The link that opens the payer's Click app (or my.click.uz in a browser) on our order: Click then
 * calls our Prepare and Complete with `merchant_trans_id` = `transaction_param`, the order id.
 */
export function clickDeeplink(p: {
  serviceId: string;
  merchantId: string;
  /** Decimal string in sums, as the order carries it. */
  amount: string;
  orderId: string;
  returnUrl?: string;
  /** Where the "Click" of this deployment lives: https://my.click.uz, or the sandbox's simulator. */
  base?: string;
}): string {
  const url = new URL('/services/pay', p.base ?? 'https://my.click.uz');
  url.searchParams.set('service_id', p.serviceId);
  url.searchParams.set('merchant_id', p.merchantId);
  url.searchParams.set('amount', p.amount);
  url.searchParams.set('transaction_param', p.orderId);
  if (p.returnUrl) url.searchParams.set('return_url', p.returnUrl);
  return url.toString();
}
