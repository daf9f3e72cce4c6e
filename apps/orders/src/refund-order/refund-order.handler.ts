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
import { refund } from '@payments/orders-domain';
import { ORDERS_CONFIG, OrdersConfig } from '../config';
import { OrderRepository } from '../order.repository';
import { toOrderView } from '../order-view';
import { applyTransition } from '../orders-outbox';
import { CLOCK, Clock, ORDERS_OUTBOX } from '../tokens';

@Controller()
export class RefundOrderHandler {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly orders: OrderRepository,
    @Inject(ORDERS_OUTBOX) private readonly outbox: Outbox,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
  ) {}

  /**
   * A partial or full refund. The order row is locked, so concurrent refunds are checked one after
   * the other against what is left; a refund id seen before answers the order as it is (a retry).
   */
  @MessagePattern(OrderCommandTypes.refund)
  async refund(@Payload() message: Envelope): Promise<Reply<OrderView>> {
    const cmd = parsePayload(refundOrderCommand, message.payload, message.type);
    const now = this.clock.now();
    const s = this.config.schema;
    return this.dataSource.transaction(async (m) => {
      const order = await this.orders.findForUpdate(m, cmd.orderId);
      if (!order || order.shopId !== cmd.shopId)
        return errorReply({ code: 'not_found', detail: `order ${cmd.orderId} does not exist` });
      const seen: unknown[] = await m.query(`SELECT 1 FROM "${s}".refunds WHERE id = $1`, [cmd.refundId]);
      if (seen.length > 0) return okReply(await this.view(m, order.id));
      const [{ total }] = await m.query(
        `SELECT COALESCE(sum(amount), 0)::text AS total FROM "${s}".refunds WHERE order_id = $1`,
        [order.id],
      );
      const result = refund(order, total, cmd.cost);
      if (result.kind === 'rejected') {
        const code = result.field ? 'unprocessable' : 'conflict';
        return errorReply({
          code,
          detail: `the refund cannot be made: ${result.reason}`,
          ...(result.field ? { errors: [{ path: result.field, message: result.reason }] } : {}),
          extensions: { orderId: order.id, currentStatus: order.status },
        });
      }
      await m.query(
        `INSERT INTO "${s}".refunds (id, order_id, amount, currency, created_at) VALUES ($1, $2, $3, $4, $5)`,
        [cmd.refundId, order.id, formatAmount(cmd.cost.amount), order.currency, now],
      );
      await applyTransition(this.outbox, m, order, result, now, message);
      return okReply(await this.view(m, order.id));
    });
  }

  private async view(m: EntityManager, orderId: string): Promise<OrderView> {
    const order = await this.orders.findForUpdate(m, orderId);
    return toOrderView(order!, await this.orders.payments(orderId, m), await this.orders.refunds(orderId, m));
  }
}
