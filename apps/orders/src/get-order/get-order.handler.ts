import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  Envelope,
  errorReply,
  getOrderQuery,
  okReply,
  OrderCommandTypes,
  OrderView,
  parsePayload,
  Reply,
} from '@payments/contracts';
import { OrderRepository } from '../order.repository';
import { toOrderView } from '../order-view';

@Controller()
export class GetOrderHandler {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly orders: OrderRepository,
  ) {}

  /** Another shop's order is answered exactly like a missing one. */
  @MessagePattern(OrderCommandTypes.get)
  async get(@Payload() message: Envelope): Promise<Reply<OrderView>> {
    const q = parsePayload(getOrderQuery, message.payload, message.type);
    const m = this.dataSource.manager;
    const order = await this.orders.findOfShop(m, q.orderId, q.shopId);
    if (!order) return errorReply({ code: 'not_found', detail: `order ${q.orderId} does not exist` });
    return okReply(toOrderView(order, await this.orders.payments(m, order.id), await this.orders.refunds(m, order.id)));
  }
}
