import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  deleteRouteCommand,
  DeletedRoute,
  Envelope,
  errorReply,
  getRouteQuery,
  okReply,
  parsePayload,
  Reply,
  RouteCommandTypes,
  RouteView,
  setRouteCommand,
} from '@payments/contracts';
import { routeErrors } from '@payments/orders-domain';
import { ShopSettingsRepository } from '../shop-settings/shop-settings.repository';
import { CLOCK, Clock } from '../tokens';
import { RouteRepository } from './route.repository';

/**
 * Operators' routes per shop and method on `orders.ops-commands` (decision 320). A route is
 * checked by the same rules as the backoffice's (libs/orders-domain routing.ts) before it is
 * stored; the shop's settings in this instance's memory are dropped so its next order uses it
 * (other instances within ORDERS_SHOP_SETTINGS_CACHE_MS, decision 321).
 */
@Controller()
export class RouteOpsHandler {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly routes: RouteRepository,
    private readonly settings: ShopSettingsRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @MessagePattern(RouteCommandTypes.set)
  async set(@Payload() message: Envelope): Promise<Reply<RouteView>> {
    const cmd = parsePayload(setRouteCommand, message.payload, message.type);
    const errors = routeErrors(cmd.providers);
    if (errors.length > 0)
      return errorReply({
        code: 'invalid',
        detail: errors.map((e) => `${e.path} ${e.message}`).join('; '),
        errors,
      });
    const view = await this.routes.upsert(this.dataSource.manager, cmd, cmd.operator, this.clock.now());
    this.settings.forget(cmd.shopId);
    return okReply(view);
  }

  @MessagePattern(RouteCommandTypes.get)
  async get(@Payload() message: Envelope): Promise<Reply<RouteView>> {
    const q = parsePayload(getRouteQuery, message.payload, message.type);
    const route = await this.routes.find(this.dataSource.manager, q.shopId, q.method);
    return route
      ? okReply(route)
      : errorReply({ code: 'not_found', detail: `shop ${q.shopId} has no route for method ${q.method}` });
  }

  @MessagePattern(RouteCommandTypes.delete)
  async delete(@Payload() message: Envelope): Promise<Reply<DeletedRoute>> {
    const cmd = parsePayload(deleteRouteCommand, message.payload, message.type);
    const deleted = await this.routes.delete(this.dataSource.manager, cmd.shopId, cmd.method);
    this.settings.forget(cmd.shopId);
    return okReply({ deleted });
  }
}
