import {
  CardBrand,
  CardBrands,
  MethodInstrumentType,
  MethodInstrumentTypes,
  RouteConditions,
  RouteStep,
} from '@payments/contracts';
import { brandOf } from '@payments/methods-domain';
import { amountOf, findCurrency, parseAmount } from '@payments/money';
import { PROVIDERS } from '@payments/providers/registry';

/** What a route's conditions look at in an order (decision 321). */
export interface RouteFacts {
  instrumentType: string | null;
  /** The card's brand by its BIN; null when the order has no card we know (a direct order). */
  brand: CardBrand | null;
  currency: string;
  amount: string;
}

/** The route of an order: its page's method code, or for an order made without a page its instrument type. */
export function routeMethodOf(order: { pageMethod: string | null; instrumentType: string | null }): string | null {
  return order.pageMethod ?? order.instrumentType;
}

/** A card's brand from its masked number (BIN, stars, last 4: the number's length): the card-domain brand table. */
export function cardBrandOf(masked: string | null | undefined): CardBrand | null {
  if (!masked) return null;
  return brandOf(masked, CardBrands) ?? null;
}

/** Whether an order fits a provider's conditions: every condition given holds. */
export function fits(when: RouteConditions | undefined, facts: RouteFacts): boolean {
  if (!when) return true;
  if (when.instrumentTypes && !(when.instrumentTypes as readonly string[]).includes(facts.instrumentType ?? ''))
    return false;
  if (when.brands && (!facts.brand || !when.brands.includes(facts.brand))) return false;
  if (when.currencies && !when.currencies.includes(facts.currency)) return false;
  const amount = amountOf(facts.amount);
  if (when.minAmount !== undefined && amount.lessThan(amountOf(when.minAmount))) return false;
  if (when.maxAmount !== undefined && amount.greaterThan(amountOf(when.maxAmount))) return false;
  return true;
}

/**
 * The provider of an order's next attempt: the first of the route that fits it and has not had an
 * attempt of it (`tried`). Undefined when the order has no route (its method's provider, as
 * before routing); null when the route has none left.
 */
export function chooseProvider(
  route: readonly RouteStep[] | undefined,
  facts: RouteFacts,
  tried: ReadonlySet<string> = new Set(),
): string | null | undefined {
  if (!route || route.length === 0) return undefined;
  return route.find((step) => !tried.has(step.provider) && fits(step.when, facts))?.provider ?? null;
}

export interface RouteError {
  path: string;
  message: string;
}

/** What a route's method offers, when known (the backoffice reads it from the methods service). */
export interface RouteMethodTerms {
  instrumentType?: MethodInstrumentType;
  currencies?: readonly string[];
}

/**
 * A route's errors, each naming its field (`providers[1].when.minAmount`): a provider the registry
 * does not know, or that takes no requests from us, or whose capabilities do not cover the
 * payment, the method's instrument and currencies or the conditions' instruments, brands and
 * currencies; a currency we do not know, an amount that is not one, a range that ends before it
 * starts; a provider twice (an order never goes to the same provider twice). Decision 320.
 */
export function routeErrors(steps: readonly RouteStep[], method: RouteMethodTerms = {}): RouteError[] {
  const errors: RouteError[] = [];
  const seen = new Set<string>();
  steps.forEach((step, i) => {
    const at = `providers[${i}]`;
    const p = PROVIDERS.get(step.provider);
    if (!p) {
      errors.push({
        path: `${at}.provider`,
        message: `unknown provider "${step.provider.slice(0, 32)}"; registered: ${[...PROVIDERS.keys()].join(', ')}`,
      });
      return;
    }
    if (seen.has(step.provider)) errors.push({ path: `${at}.provider`, message: 'is already in this route' });
    seen.add(step.provider);
    const c = p.capabilities;
    if (!p.client)
      errors.push({ path: `${at}.provider`, message: 'takes no requests from us (paid from its own app)' });
    if (!c.operations.includes('payment')) errors.push({ path: `${at}.provider`, message: 'takes no payments' });
    const instruments = [
      ...(method.instrumentType ? [method.instrumentType] : []),
      ...(step.when?.instrumentTypes ?? []),
    ];
    for (const it of new Set(instruments))
      if (!c.instruments.includes(it))
        errors.push({
          path: step.when?.instrumentTypes?.includes(it) ? `${at}.when.instrumentTypes` : `${at}.provider`,
          message: `${p.code} does not take ${it} payments`,
        });
    errors.push(...conditionErrors(at, step.when, c, method));
  });
  return errors;
}

function conditionErrors(
  at: string,
  when: RouteConditions | undefined,
  c: { brands: readonly string[]; currencies: readonly string[] },
  method: RouteMethodTerms,
): RouteError[] {
  const errors: RouteError[] = [];
  const takes = (currency: string) => c.currencies.includes('*') || c.currencies.includes(currency);
  for (const b of when?.brands ?? [])
    if (!c.brands.includes(b))
      errors.push({ path: `${at}.when.brands`, message: `the provider does not acquire ${b}` });
  if (when?.brands && method.instrumentType && method.instrumentType !== 'card')
    errors.push({
      path: `${at}.when.brands`,
      message: `applies only to card methods; this one is ${method.instrumentType}`,
    });
  for (const cur of when?.currencies ?? []) {
    if (findCurrency(cur).kind !== 'found')
      errors.push({ path: `${at}.when.currencies`, message: `"${cur.slice(0, 32)}" is not a supported currency` });
    else if (!takes(cur)) errors.push({ path: `${at}.when.currencies`, message: `the provider does not take ${cur}` });
  }
  const offered = method.currencies ?? [];
  if (offered.length > 0 && !offered.some(takes))
    errors.push({ path: `${at}.provider`, message: `takes none of the method's currencies (${offered.join(', ')})` });
  const min = when?.minAmount === undefined ? undefined : parseAmount(when.minAmount);
  const max = when?.maxAmount === undefined ? undefined : parseAmount(when.maxAmount);
  if (min?.kind === 'invalid') errors.push({ path: `${at}.when.minAmount`, message: min.reason });
  if (max?.kind === 'invalid') errors.push({ path: `${at}.when.maxAmount`, message: max.reason });
  if (min?.kind === 'ok' && max?.kind === 'ok' && min.amount.greaterThan(max.amount))
    errors.push({ path: `${at}.when.minAmount`, message: 'must not be greater than maxAmount' });
  return errors;
}

/** Whether `method` names an instrument type (the route of orders made without a page). */
export function isInstrumentMethod(method: string): method is MethodInstrumentType {
  return (MethodInstrumentTypes as readonly string[]).includes(method);
}
