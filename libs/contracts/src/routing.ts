import { z } from 'zod';
import { CardBrands, MethodInstrumentTypes } from './methods';
import { operatorMember } from './operator-identity';
import { decimal, optional, uuid } from './schema';

/**
 * Routing rules per shop and method (issue 30 item 4, decision 320): set by operators through the
 * backoffice on the orders' operator path `orders.ops-commands` (decision 263), each command with
 * its `operator` (decision 301). Orders stores them and chooses a new attempt's provider by them.
 */
export const RouteCommandTypes = {
  set: 'order.set_route',
  get: 'order.get_route',
  delete: 'order.delete_route',
} as const;

/** The method a route is for: a payment method code of the shop (`cards`), or an instrument type for orders made without a page. */
export const ROUTE_METHOD_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const routeMethod = () => z.string().regex(ROUTE_METHOD_PATTERN, { error: 'must be a method code' });

export const routeConditions = z
  .strictObject({
    instrumentTypes: optional(
      z
        .array(z.enum(MethodInstrumentTypes))
        .min(1)
        .max(MethodInstrumentTypes.length)
        .describe("The order's instrument"),
    ),
    brands: optional(
      z
        .array(z.enum(CardBrands))
        .min(1)
        .max(CardBrands.length)
        .describe(
          "The card's brand, by its BIN (the card-domain brand table); an order whose card is not known does not fit",
        ),
    ),
    currencies: optional(z.array(z.string().min(1).max(32)).min(1).max(32).describe("The order's currency")),
    minAmount: optional(decimal().describe("The order's amount at least this")),
    maxAmount: optional(decimal().describe("The order's amount at most this")),
  })
  .describe('When a provider of a route fits an order: every condition given must hold; none given, it always fits');
export type RouteConditions = z.infer<typeof routeConditions>;

export const routeStep = z
  .strictObject({
    provider: z.string().min(1).max(32).describe('A provider code of the registry (`sandbox`, `sandbox-b`)'),
    when: optional(routeConditions),
  })
  .describe('One provider of a route, with the conditions under which it takes an order');
export type RouteStep = z.infer<typeof routeStep>;

export const routeView = z
  .object({
    shopId: z.string(),
    method: z.string(),
    providers: z
      .array(routeStep)
      .describe('In order: the first that fits takes the attempt, the next fitting one a failover'),
    updatedAt: z.string(),
  })
  .describe("A shop's route for one method");
export type RouteView = z.infer<typeof routeView>;

export const setRouteCommand = z
  .object({
    shopId: uuid(),
    method: routeMethod(),
    providers: z.array(routeStep).min(1).max(8),
    ...operatorMember(),
  })
  .describe("Sets (creates or replaces) a shop's route for a method");
export type SetRouteCommand = z.infer<typeof setRouteCommand>;

export const getRouteQuery = z
  .object({ shopId: uuid(), method: routeMethod(), ...operatorMember() })
  .describe("Reads a shop's route for a method (not_found when it has none)");
export type GetRouteQuery = z.infer<typeof getRouteQuery>;

export const deleteRouteCommand = z
  .object({ shopId: uuid(), method: routeMethod(), ...operatorMember() })
  .describe("Deletes a shop's route for a method: its orders go to the method's provider again");
export type DeleteRouteCommand = z.infer<typeof deleteRouteCommand>;

export const deletedRoute = z
  .object({ deleted: z.boolean().describe('false: there was no such route') })
  .describe("The answer to a route's deletion");
export type DeletedRoute = z.infer<typeof deletedRoute>;
