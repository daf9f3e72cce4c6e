import type { RouteStep } from '@payments/contracts';
import { cardBrandOf, chooseProvider, RouteFacts, routeMethodOf } from '@payments/orders-domain';
import type { OrderShopSettings } from '../shop-settings/shop-settings.repository';

/** What an order shows a route's conditions (decision 321). */
export interface RoutedOrder {
  pageMethod: string | null;
  instrumentType: string | null;
  currency: string;
  amount: string;
  cardMasked: string | null;
}

function factsOf(order: RoutedOrder): RouteFacts {
  return {
    // A hosted page's card payment is a card payment, whatever the merchant named (or did not).
    instrumentType: order.instrumentType ?? (order.cardMasked ? 'card' : null),
    brand: cardBrandOf(order.cardMasked),
    currency: order.currency,
    amount: order.amount,
  };
}

/**
 * The route of a method: the shop's own key only. `routes` is a plain object from JSON, so a method
 * code such as `constructor` or `__proto__` must not find Object.prototype's members.
 */
function routeOf(settings: OrderShopSettings, method: string | null): readonly RouteStep[] | undefined {
  if (!method || !Object.hasOwn(settings.routes, method)) return undefined;
  // Not `routes[method]`: an own `__proto__` key (JSON.parse makes one) reads the prototype that way.
  return Object.getOwnPropertyDescriptor(settings.routes, method)?.value as readonly RouteStep[] | undefined;
}

/**
 * The provider of an order's first attempt (decision 321): the first of its method's route that
 * fits it; without a route, or with none fitting, its method's provider (`fallback`), as before
 * routing. `method` overrides the order's own (a hosted page's method before it is stored).
 */
export function firstProvider(
  settings: OrderShopSettings,
  order: RoutedOrder,
  fallback: string,
  method: string | null = routeMethodOf(order),
): string {
  return chooseProvider(routeOf(settings, method), factsOf(order)) ?? fallback;
}

/**
 * The provider a failed attempt fails over to (decision 322): the next of the route that fits
 * the order and has not had an attempt of it; null without a route or when none is left.
 */
export function nextProvider(
  settings: OrderShopSettings,
  order: RoutedOrder,
  tried: ReadonlySet<string>,
): string | null {
  return chooseProvider(routeOf(settings, routeMethodOf(order)), factsOf(order), tried) ?? null;
}
