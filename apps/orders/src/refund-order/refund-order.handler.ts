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
  RefundOrderCommand,
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
import { CLOCK, Clock, ORDERS_OUTBOX, ORDERS_REFUND_FUNDS } from '../tokens';
import { RefundFunds } from './refund-funds';

function refundRejected(order: OrderEntity, result: Extract<RefundResult, { kind: 'rejected' }>): Reply<never> {
  return errorReply({
    code: result.field ? 'unprocessable' : 'conflict',
    detail: `the refund cannot be made: ${result.reason}`,
    ...(result.field ? { errors: [{ path: result.field, message: result.reason }] } : {}),
    extensions: { orderId: order.id, currentStatus: order.status },
  });
}

const NOT_FOUND = (orderId: string) => errorReply({ code: 'not_found', detail: `order ${orderId} does not exist` });

@Controller()
export class RefundOrderHandler {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly orders: OrderRepository,
    @Inject(ORDERS_OUTBOX) private readonly outbox: Outbox,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ORDERS_REFUND_FUNDS) private readonly funds: RefundFunds,
  ) {}

  /**
   * A partial or full refund. It is checked first; then the ledger holds its debit (decision 276;
   * asked outside any transaction, so no connection waits on Kafka) or refuses it; then the order
   * row is locked and it is checked again against what is left, so concurrent refunds are decided
   * one after the other. A refund id seen before answers the order as it is (a retry); a refund
   * refused at the second check gives its hold back.
   */
  @MessagePattern(OrderCommandTypes.refund)
  async refund(@Payload() message: Envelope): Promise<Reply<OrderView>> {
    const cmd = parsePayload(refundOrderCommand, message.payload, message.type);
    const first = await this.dataSource.transaction((m) => this.check(m, cmd));
    if (first.kind === 'answer') return first.reply;
    const refused = await this.funds.reserve({
      refundId: cmd.refundId,
      orderId: cmd.orderId,
      shopId: cmd.shopId,
      amount: formatAmount(cmd.cost.amount),
      // This command, not the refund: handled again after a crash it gets the answer it had; the
      // merchant's retry with the same key is a new command, decided on the books as they are.
      attemptId: message.eventId,
    });
    if (refused) return refused;
    const now = this.clock.now();
    const done = await this.dataSource.transaction(async (m): Promise<Reply<OrderView> | 'refused'> => {
      const again = await this.check(m, cmd);
      if (again.kind === 'answer') return again.reply.ok ? again.reply : 'refused';
      const { order, result } = again;
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
    if (done !== 'refused') return done;
    // A concurrent refund took what was left meanwhile: this one is never created, so no hold.
    await this.funds.release({ refundId: cmd.refundId, shopId: cmd.shopId });
    return this.dataSource.transaction(async (m) => {
      const answer = await this.check(m, cmd);
      return answer.kind === 'answer' ? answer.reply : NOT_FOUND(cmd.orderId);
    });
  }

  /** The refund against the locked order: an answer already (unknown, a retry, refused), or go ahead. */
  private async check(
    m: EntityManager,
    cmd: RefundOrderCommand,
  ): Promise<
    | { kind: 'answer'; reply: Reply<OrderView> }
    | { kind: 'go'; order: OrderEntity; result: Extract<RefundResult, { kind: 'transition' }> }
  > {
    const order = await this.orders.findForUpdate(m, cmd.orderId);
    if (!order || order.shopId !== cmd.shopId) return { kind: 'answer', reply: NOT_FOUND(cmd.orderId) };
    if (await this.orders.refundExists(m, cmd.refundId))
      return { kind: 'answer', reply: okReply(await this.view(m, order.id)) };
    const result = refund(order, await this.orders.refundedTotal(m, order.id), cmd.cost);
    if (result.kind === 'rejected') return { kind: 'answer', reply: refundRejected(order, result) };
    return { kind: 'go', order, result };
  }

  private async view(m: EntityManager, orderId: string): Promise<OrderView> {
    const order = await this.orders.findForUpdate(m, orderId);
    return toOrderView(order!, await this.orders.payments(m, orderId), await this.orders.refunds(m, orderId));
  }
}
