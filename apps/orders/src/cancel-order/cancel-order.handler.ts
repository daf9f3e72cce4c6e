import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  cancelOrderCommand,
  Envelope,
  errorReply,
  okReply,
  OrderCommandTypes,
  OrderView,
  parsePayload,
  Reply,
} from '@payments/contracts';
import { Outbox } from '@payments/messaging';
import { cancelOrder } from '@payments/orders-domain';
import { OrderRepository } from '../order.repository';
import { toOrderView } from '../order-view';
import { applyTransition } from '../orders-outbox';
import { CLOCK, Clock, ORDERS_OUTBOX } from '../tokens';

@Controller()
export class CancelOrderHandler {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly orders: OrderRepository,
    @Inject(ORDERS_OUTBOX) private readonly outbox: Outbox,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Cancels a non-final order of the shop; a final one is a conflict naming its status. Cancelling twice answers the same. */
  @MessagePattern(OrderCommandTypes.cancel)
  async cancel(@Payload() message: Envelope): Promise<Reply<OrderView>> {
    const cmd = parsePayload(cancelOrderCommand, message.payload, message.type);
    const now = this.clock.now();
    return this.dataSource.transaction(async (m) => {
      const order = await this.orders.findForUpdate(m, cmd.orderId);
      if (!order || order.shopId !== cmd.shopId)
        return errorReply({ code: 'not_found', detail: `order ${cmd.orderId} does not exist` });
      if (order.status === 'cancelled') return okReply(toOrderView(order, await this.orders.payments(m, order.id)));
      const result = cancelOrder(order);
      if (result.kind === 'rejected') {
        return errorReply({
          code: 'conflict',
          detail: `the order cannot be cancelled: ${result.reason}`,
          extensions: { orderId: order.id, currentStatus: order.status },
        });
      }
      await applyTransition(this.outbox, m, order, result, now, message);
      return okReply(toOrderView(order, await this.orders.payments(m, order.id)));
    });
  }
}
