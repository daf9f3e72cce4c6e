import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  decodeListCursor,
  encodeListCursor,
  Envelope,
  errorReply,
  getOrderForOperatorQuery,
  getOrderByMerchantIdQuery,
  getOrderQuery,
  listOrdersForOperatorQuery,
  okReply,
  OrderPage,
  OrderCommandTypes,
  OrderView,
  parsePayload,
  Reply,
} from '@payments/contracts';
import { OrderEntity } from '../order.entity';
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
    const order = await this.orders.findOfShop(this.dataSource.manager, q.orderId, q.shopId);
    if (!order) return errorReply({ code: 'not_found', detail: `order ${q.orderId} does not exist` });
    return okReply(await this.view(order));
  }

  /** By the merchant's own id, unique per shop; another shop's is answered like a missing one. */
  @MessagePattern(OrderCommandTypes.getByMerchantId)
  async getByMerchantId(@Payload() message: Envelope): Promise<Reply<OrderView>> {
    const q = parsePayload(getOrderByMerchantIdQuery, message.payload, message.type);
    const order = await this.orders.findByMerchantOrderId(this.dataSource.manager, q.shopId, q.merchantOrderId);
    if (!order)
      return errorReply({
        code: 'not_found',
        detail: `no order of this shop has merchantOrderId "${q.merchantOrderId}"`,
      });
    return okReply(await this.view(order));
  }

  private async view(order: OrderEntity): Promise<OrderView> {
    const m = this.dataSource.manager;
    return toOrderView(order, await this.orders.payments(m, order.id), await this.orders.refunds(m, order.id));
  }

  /** Operators read any shop's order, with why it waits when it is in need_action. */
  @MessagePattern(OrderCommandTypes.getForOperator)
  async getForOperator(@Payload() message: Envelope): Promise<Reply<OrderView>> {
    const q = parsePayload(getOrderForOperatorQuery, message.payload, message.type);
    const m = this.dataSource.manager;
    const order = await this.orders.findById(m, q.orderId);
    if (!order) return errorReply({ code: 'not_found', detail: `order ${q.orderId} does not exist` });
    return okReply(toOrderView(order, await this.orders.payments(m, order.id), await this.orders.refunds(m, order.id)));
  }

  /** Operators list any shop's orders (the console's need_action queue and search), newest first. */
  @MessagePattern(OrderCommandTypes.listForOperator)
  async listForOperator(@Payload() message: Envelope): Promise<Reply<OrderPage>> {
    const q = parsePayload(listOrdersForOperatorQuery, message.payload, message.type);
    const m = this.dataSource.manager;
    const after = q.cursor ? decodeListCursor(q.cursor) : undefined;
    if (q.cursor && !after)
      return errorReply({
        code: 'invalid',
        detail: 'cursor: must be the nextCursor of a previous page',
        errors: [{ path: 'cursor', message: 'must be the nextCursor of a previous page' }],
      });
    const found = await this.orders.listForOperator(m, { ...q, after, limit: q.limit + 1 });
    const page = found.slice(0, q.limit);
    const parts = await this.orders.partsOf(
      m,
      page.map((o) => o.id),
    );
    const items = page.map((o) => toOrderView(o, parts.get(o.id)!.payments, parts.get(o.id)!.refunds));
    const last = page[page.length - 1];
    return okReply({ items, nextCursor: found.length > q.limit ? encodeListCursor(last.createdAt, last.id) : null });
  }
}
