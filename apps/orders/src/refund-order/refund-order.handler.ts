import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import {
  Envelope,
  errorReply,
  okReply,
  OrderCommandTypes,
  OrderView,
  parsePayload,
  Reply,
  refundOrderCommand,
} from '@payments/contracts';
import { Outbox } from '@payments/messaging';
import { formatAmount } from '@payments/money';
import { refund, RefundResult } from '@payments/orders-domain';
import { OrderEntity } from '../order.entity';
import { OrderRepository } from '../order.repository';
import { toOrderView } from '../order-view';
import { applyTransition } from '../orders-outbox';
import { CLOCK, Clock, ORDERS_OUTBOX } from '../tokens';

function refundRejected(order: OrderEntity, result: Extract<RefundResult, { kind: 'rejected' }>): Reply<never> {
  return errorReply({
    code: result.field ? 'unprocessable' : 'conflict',
    detail: `the refund cannot be made: ${result.reason}`,
    ...(result.field ? { errors: [{ path: result.field, message: result.reason }] } : {}),
    extensions: { orderId: order.id, currentStatus: order.status },
  });
}

@Controller()
export class RefundOrderHandler {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly orders: OrderRepository,
    @Inject(ORDERS_OUTBOX) private readonly outbox: Outbox,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * A partial or full refund. The order row is locked, so concurrent refunds are checked one after
   * the other against what is left; a refund id seen before answers the order as it is (a retry).
   */
  @MessagePattern(OrderCommandTypes.refund)
  async refund(@Payload() message: Envelope): Promise<Reply<OrderView>> {
    const cmd = parsePayload(refundOrderCommand, message.payload, message.type);
    const now = this.clock.now();
    return this.dataSource.transaction(async (m) => {
      const order = await this.orders.findForUpdate(m, cmd.orderId);
      if (!order || order.shopId !== cmd.shopId)
        return errorReply({ code: 'not_found', detail: `order ${cmd.orderId} does not exist` });
      if (await this.orders.refundExists(m, cmd.refundId)) return okReply(await this.view(m, order.id));
      const result = refund(order, await this.orders.refundedTotal(m, order.id), cmd.cost);
      if (result.kind === 'rejected') return refundRejected(order, result);
      const amount = formatAmount(cmd.cost.amount);
      await this.orders.insertRefund(m, order.id, {
        refundId: cmd.refundId,
        amount,
        currency: order.currency,
        createdAt: now,
      });
      await applyTransition(this.outbox, m, order, result, now, message, {
        refund: { refundId: cmd.refundId, amount },
      });
      return okReply(await this.view(m, order.id));
    });
  }

  private async view(m: EntityManager, orderId: string): Promise<OrderView> {
    const order = await this.orders.findForUpdate(m, orderId);
    return toOrderView(order!, await this.orders.payments(m, orderId), await this.orders.refunds(m, orderId));
  }
}
