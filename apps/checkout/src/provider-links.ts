import type { CheckoutOrderView } from '@payments/contracts';
import { CLICK_CURRENCY, clickDeeplink, clickProvider, parseClickSettings } from '@payments/providers/click';
import { PAYME_CURRENCY, paymeCheckoutLink, paymeProvider, parsePaymeSettings } from '@payments/providers/payme';
import type { ProviderLink } from './pages/order-page';

/** Where "Click" is (my.click.uz, or the sandbox's) and where Payme's checkout is. */
export interface CheckoutProviderUrls {
  clickPayUrl: string;
  paymeCheckoutUrl: string;
}

/**
 * The public ids of the shop's account with a provider, as the order's view carries them
 * (decision 342), checked by the provider's own folder; undefined when the shop has none.
 */
function idsOf<T>(
  v: CheckoutOrderView,
  code: string,
  parse: (x: unknown) => { ok: true; value: T } | { ok: false },
): T | undefined {
  const ids = v.providerIds?.[code];
  if (!ids) return undefined;
  const r = parse(ids);
  return r.ok ? r.value : undefined;
}

/**
 * The app providers a live order can be paid with from its page, in this order: Click for a shop
 * that has a Click account, Payme for one with a Payme cashbox, both in sums only. The accounts are
 * the operators' (decision 341); orders' view carries their public ids. Each deeplink carries the
 * order id; the provider then calls callbacks-ingest, which asks the order. Back to the shop's
 * success URL when it gave one.
 */
export function providerLinksFor(v: CheckoutOrderView, urls: CheckoutProviderUrls): ProviderLink[] {
  const links: ProviderLink[] = [];
  const click = idsOf(v, clickProvider.code, parseClickSettings);
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
        base: urls.clickPayUrl,
      }),
    });
  const payme = idsOf(v, paymeProvider.code, parsePaymeSettings);
  if (payme && v.currency === PAYME_CURRENCY)
    links.push({
      code: paymeProvider.code,
      name: paymeProvider.displayName,
      href: paymeCheckoutLink({
        merchantId: payme.merchantId,
        orderId: v.orderId,
        amount: v.amount,
        returnUrl: v.redirectUrls?.success,
        base: urls.paymeCheckoutUrl,
      }),
    });
  return links;
}
