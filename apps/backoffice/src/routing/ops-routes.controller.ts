import { Body, Controller, Delete, Get, HttpCode, Inject, Param, ParseUUIDPipe, Put, UseGuards } from '@nestjs/common';
import {
  asOperator,
  commandTopic,
  DeletedRoute,
  MethodListView,
  MethodQueryTypes,
  OperatorIdentity,
  ROUTE_METHOD_PATTERN,
  RouteCommandTypes,
  RouteStep,
  RouteView,
} from '@payments/contracts';
import { isInstrumentMethod, RouteError, routeErrors, RouteMethodTerms } from '@payments/orders-domain';
import { KafkaRequestClient } from '@payments/messaging';
import { ask, assertValid, OpsEndpoint, ShopRepository } from '@payments/merchant-admin';
import { ProblemException } from '@payments/platform';
import { ActingOperator } from '../auth/acting-operator.decorator';
import { OpsAuthGuard } from '../auth/ops-auth.guard';
import { Audited } from '../operators/audited.decorator';
import { REQUEST_CLIENT } from '../tokens';
import { DeleteRouteDto, SetRouteDto } from './routes.dto';
import { deleteRouteExample, routeEveryConditionExample, routeExample, setRouteExample } from './routes.examples';

const uuid = (what: string) =>
  new ParseUUIDPipe({ exceptionFactory: () => new ProblemException('notFound', `No such ${what}.`) });

const methodErrors = (method: string): RouteError[] =>
  ROUTE_METHOD_PATTERN.test(method)
    ? []
    : [{ path: 'method', message: 'must be a method code (lower-case letters, digits, _ and -)' }];

/**
 * Operators set a shop's route per payment method (issue 30 item 4, decision 320): which
 * providers take its orders, in order, under which conditions. Orders owns the routes; the
 * backoffice checks each against the registry and the method (libs/orders-domain routing.ts: a bad
 * one is a 400 naming the field and nothing is sent), asks orders on `orders.ops-commands` with
 * the acting operator (decision 301), and audits it with the mandatory reason.
 */
@UseGuards(OpsAuthGuard)
@Controller('ops/v1')
export class OpsRoutesController {
  constructor(
    private readonly shops: ShopRepository,
    @Inject(REQUEST_CLIENT) private readonly client: KafkaRequestClient,
  ) {}

  private askOrders<T>(shopId: string, type: string, operator: OperatorIdentity, payload: object): Promise<T> {
    return ask<T>(this.client, commandTopic('orders', 'operator'), shopId, type, asOperator(operator, payload));
  }

  private async shopMustExist(shopId: string): Promise<void> {
    if (!(await this.shops.exists(shopId))) throw new ProblemException('notFound', 'No such shop.');
  }

  /**
   * What the route's method offers: a payment method of the shop (its instrument and currencies,
   * from the methods service), or an instrument type (the route of orders made without a page).
   */
  private async methodTerms(shopId: string, method: string, operator: OperatorIdentity): Promise<RouteMethodTerms> {
    const list = await ask<MethodListView>(
      this.client,
      commandTopic('methods', 'operator'),
      shopId,
      MethodQueryTypes.paymentList,
      asOperator(operator, { shopId, includeDisabled: true }),
    );
    const found = list.methods.find((m) => m.code === method);
    if (found) return { instrumentType: found.instrumentType, currencies: found.currencies.map((c) => c.currency) };
    if (isInstrumentMethod(method)) return { instrumentType: method };
    throw new ProblemException('validation', `method: "${method}" is not a payment method of this shop`, [
      { path: 'method', message: 'is not a payment method of this shop nor an instrument type' },
    ]);
  }

  @Get('shops/:shopId/routes/:method')
  @OpsEndpoint({
    summary: "A shop's route for a payment method: its providers in order, with their conditions",
    response: { example: routeExample, variants: [routeEveryConditionExample] },
    problems: [400, 404, 503],
  })
  async getRoute(
    @Param('shopId', uuid('shop')) shopId: string,
    @Param('method') method: string,
    @ActingOperator() operator: OperatorIdentity,
  ): Promise<RouteView> {
    assertValid(methodErrors(method));
    await this.shopMustExist(shopId);
    return this.askOrders<RouteView>(shopId, RouteCommandTypes.get, operator, { shopId, method });
  }

  /** The route as it was, for the audit record's `before` (not a route); null when there was none. */
  async routeBefore(shopId: string, method: string, operator: OperatorIdentity): Promise<RouteView | null> {
    if (methodErrors(method).length > 0) return null;
    try {
      return await this.getRoute(shopId, method, operator);
    } catch (err) {
      if (err instanceof ProblemException && err.kind === 'notFound') return null;
      throw err;
    }
  }

  @Put('shops/:shopId/routes/:method')
  @Audited({
    action: 'orders.route.set',
    object: 'shop',
    idParam: 'shopId',
    read: { method: 'routeBefore', args: ['shopId', 'method'], checkedByRead: ['method'] },
  })
  @OpsEndpoint({
    role: 'operator',
    summary: "Set a shop's route for a payment method: providers in order, each with optional conditions",
    description:
      "method: a payment method code of the shop, or an instrument type (`card`) for orders made without a page. Each provider must be registered, take payments from us, and cover the method's instrument and currencies and the conditions' instruments, brands and currencies; minAmount at most maxAmount; no provider twice. A new attempt goes to the first provider that fits the order (none fitting: the method's own provider); a card attempt refused before acceptance fails over to the next (docs/providers.md, Routing).",
    body: { type: SetRouteDto, example: setRouteExample },
    response: { example: routeExample, variants: [routeEveryConditionExample], description: 'The route as it is now' },
    problems: [404, 503],
  })
  async setRoute(
    @Param('shopId', uuid('shop')) shopId: string,
    @Param('method') method: string,
    @Body() body: SetRouteDto,
    @ActingOperator() operator: OperatorIdentity,
  ): Promise<RouteView> {
    const providers = body.providers.map(stepOf);
    assertValid([...methodErrors(method), ...routeErrors(providers)]);
    await this.shopMustExist(shopId);
    assertValid(routeErrors(providers, await this.methodTerms(shopId, method, operator)));
    return this.askOrders<RouteView>(shopId, RouteCommandTypes.set, operator, { shopId, method, providers });
  }

  @Delete('shops/:shopId/routes/:method')
  @HttpCode(204)
  @Audited({
    action: 'orders.route.delete',
    object: 'shop',
    idParam: 'shopId',
    read: { method: 'routeBefore', args: ['shopId', 'method'], checkedByRead: ['method'] },
  })
  @OpsEndpoint({
    role: 'operator',
    summary: "Delete a shop's route for a payment method (its orders go to the method's own provider again)",
    status: 204,
    body: { type: DeleteRouteDto, example: deleteRouteExample },
    problems: [404, 503],
  })
  async deleteRoute(
    @Param('shopId', uuid('shop')) shopId: string,
    @Param('method') method: string,
    @Body() _body: DeleteRouteDto,
    @ActingOperator() operator: OperatorIdentity,
  ): Promise<void> {
    assertValid(methodErrors(method));
    await this.shopMustExist(shopId);
    const r = await this.askOrders<DeletedRoute>(shopId, RouteCommandTypes.delete, operator, { shopId, method });
    if (!r.deleted) throw new ProblemException('notFound', 'No such route.');
  }
}

/** A step as the command carries it: only the members given (class-transformer leaves undefined ones out). */
function stepOf(s: { provider: string; when?: object }): RouteStep {
  const when = s.when
    ? (Object.fromEntries(Object.entries(s.when).filter(([, v]) => v !== undefined)) as RouteStep['when'])
    : undefined;
  return { provider: s.provider, ...(when ? { when } : {}) };
}
