import type { CheckoutOrderView } from '@payments/contracts';
import { CLICK_CURRENCY, clickDeeplink, ClickShop, clickProvider } from '@payments/providers/click';
import type { ProviderLink } from './pages/order-page';

/** Where checkout finds the shops that take Click and where "Click" is (my.click.uz, or the sandbox's). */
export interface CheckoutClickConfig {
  shops: ClickShop[];
  payUrl: string;
}

/**
 * The app providers a live order can be paid with from its page: Click for a shop that has a Click
 * account, in sums. The deeplink carries the order id (`transaction_param`); Click then calls
 * callbacks-ingest, which asks the order. Back to the shop's success URL when it gave one.
 */
export function providerLinksFor(v: CheckoutOrderView, click: CheckoutClickConfig | undefined): ProviderLink[] {
  // Configurations built by hand (unit tests of the controller) may leave Click out: no button then.
  const account = click?.shops.find((s) => s.shopId === v.shopId);
  if (!account || v.currency !== CLICK_CURRENCY) return [];
  return [
    {
      code: clickProvider.code,
      name: clickProvider.displayName,
      href: clickDeeplink({
        serviceId: account.serviceId,
        merchantId: account.merchantId,
        amount: v.amount,
        orderId: v.orderId,
        returnUrl: v.redirectUrls?.success,
        base: click!.payUrl,
      }),
    },
  ];
}
