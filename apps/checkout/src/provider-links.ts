import type { CheckoutOrderView } from '@payments/contracts';
import { CLICK_CURRENCY, clickDeeplink, ClickShop, clickProvider } from '@payments/providers/click';
import { PAYME_CURRENCY, paymeCheckoutLink, paymeProvider, PaymeShop } from '@payments/providers/payme';
import type { ProviderLink } from './pages/order-page';

/** Where checkout finds the shops that take Click and where "Click" is (my.click.uz, or the sandbox's). */
export interface CheckoutClickConfig {
  shops: ClickShop[];
  payUrl: string;
}

/** The shops that take Payme (their cashbox's merchant id, public) and where Payme's checkout is. */
export interface CheckoutPaymeConfig {
  shops: PaymeShop[];
  checkoutUrl: string;
}

/**
 * The app providers a live order can be paid with from its page, in this order: Click for a shop
 * that has a Click account, Payme for one with a Payme cashbox, both in sums only. Each deeplink
 * carries the order id; the provider then calls callbacks-ingest, which asks the order. Back to the
 * shop's success URL when it gave one.
 */
export function providerLinksFor(
  v: CheckoutOrderView,
  config: { click?: CheckoutClickConfig; payme?: CheckoutPaymeConfig },
): ProviderLink[] {
  // Configurations built by hand (unit tests of the controller) may leave a provider out: no button then.
  const links: ProviderLink[] = [];
  const click = config.click?.shops.find((s) => s.shopId === v.shopId);
  if (click && v.currency === CLICK_CURRENCY)
    links.push({
      code: clickProvider.code,
      name: clickProvider.displayName,
      href: clickDeeplink({
        serviceId: click.serviceId,
        merchantId: click.merchantId,
        amount: v.amount,
        orderId: v.orderId,
        returnUrl: v.redirectUrls?.success,
        base: config.click!.payUrl,
      }),
    });
  const payme = config.payme?.shops.find((s) => s.shopId === v.shopId);
  if (payme && v.currency === PAYME_CURRENCY)
    links.push({
      code: paymeProvider.code,
      name: paymeProvider.displayName,
      href: paymeCheckoutLink({
        merchantId: payme.merchantId,
        orderId: v.orderId,
        amount: v.amount,
        returnUrl: v.redirectUrls?.success,
        base: config.payme!.checkoutUrl,
      }),
    });
  return links;
}
