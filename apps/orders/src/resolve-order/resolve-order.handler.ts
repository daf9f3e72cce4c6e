import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  Envelope,
  errorReply,
  okReply,
  OrderCommandTypes,
  OrderView,
  parsePayload,
  Reply,
  resolveOrderCommand,
} from '@payments/contracts';
import { Outbox } from '@payments/messaging';
import { resolveByOperator } from '@payments/orders-domain';
import { OrderRepository } from '../order.repository';
import { toOrderView } from '../order-view';
import { applyTransition } from '../orders-outbox';
import { CLOCK, Clock, ORDERS_OUTBOX } from '../tokens';

@Controller()
export class ResolveOrderHandler {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly orders: OrderRepository,
    @Inject(ORDERS_OUTBOX) private readonly outbox: Outbox,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Technical support's manual resolution of an order in need_action (operator API). */
  @MessagePattern(OrderCommandTypes.resolve)
  async resolve(@Payload() message: Envelope): Promise<Reply<OrderView>> {
    const cmd = parsePayload(resolveOrderCommand, message.payload, message.type);
    const now = this.clock.now();
    return this.dataSource.transaction(async (m) => {
      const order = await this.orders.findForUpdate(m, cmd.orderId);
      if (!order) return errorReply({ code: 'not_found', detail: `order ${cmd.orderId} does not exist` });
      const result = resolveByOperator(order, cmd.action);
      if (result.kind === 'rejected')
        return errorReply({
          code: 'conflict',
          detail: result.reason,
          extensions: { orderId: order.id, currentStatus: order.status },
        });
      await applyTransition(this.outbox, m, order, result, now, message);
      await this.orders.recordResolver(m, order.id, cmd.operator);
      return okReply(toOrderView(order, await this.orders.payments(m, order.id)));
    });
  }
}
