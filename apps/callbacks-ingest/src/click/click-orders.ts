import { Inject, Injectable, Logger } from '@nestjs/common';
import { commandTopic, OrderCommandTypes, OrderView, RefundOrderCommand } from '@payments/contracts';
import { KafkaRequestClient } from '@payments/messaging';
import { ClickOrderState } from '@payments/providers/click';
import { CALLBACKS_INGEST_CONFIG, CallbacksIngestConfig } from '../config';

export const CALLBACKS_REQUEST_CLIENT = Symbol('CALLBACKS_REQUEST_CLIENT');

/**
 * Asks the orders service, over its request-reply (orders.commands), what Click needs to know of an
 * order before answering: exists, shop, amount, currency, status. `down` when it did not answer
 * in time: Click is waiting for us, so we answer rather than wait longer.
 */
@Injectable()
export class ClickOrders {
  private readonly logger = new Logger('ClickOrders');

  constructor(
    @Inject(CALLBACKS_REQUEST_CLIENT) private readonly client: KafkaRequestClient | null,
    @Inject(CALLBACKS_INGEST_CONFIG) private readonly config: CallbacksIngestConfig,
  ) {}

  async state(orderId: string): Promise<ClickOrderState | { kind: 'down' }> {
    if (!this.client) return { kind: 'down' };
    try {
      const reply = await this.client.request<OrderView>(
        commandTopic('orders', 'provider'),
        orderId,
        OrderCommandTypes.getForOperator,
        { orderId },
        { timeoutMs: this.config.click.orderTimeoutMs },
      );
      if (!reply.ok) {
        if (reply.error.code === 'not_found') return { kind: 'not_found' };
        this.logger.warn(`order ${orderId} could not be read for Click: ${reply.error.code} ${reply.error.detail}`);
        return { kind: 'down' };
      }
      const v = reply.result;
      return {
        kind: 'found',
        shopId: v.shopId,
        amount: v.order.cost.amount,
        currency: v.order.cost.currency,
        status: v.status,
      };
    } catch (err) {
      this.logger.warn(`order ${orderId} was not answered for Click: ${(err as Error).message}`);
      return { kind: 'down' };
    }
  }

  /**
   * A refund of a paid order, the command a merchant's refund sends (orders.commands, `order.refund`).
   * The refund id is the caller's and stable, so asking again after a lost answer refunds once.
   * `refused`: orders said no (nothing left to refund, another shop's order); `down`: no answer.
   */
  async refund(command: RefundOrderCommand): Promise<'refunded' | 'refused' | 'down'> {
    if (!this.client) return 'down';
    try {
      const reply = await this.client.request<OrderView>(
        commandTopic('orders', 'provider'),
        command.orderId,
        OrderCommandTypes.refund,
        command,
        { timeoutMs: this.config.click.orderTimeoutMs },
      );
      if (reply.ok) return 'refunded';
      this.logger.log(
        `order ${command.orderId} refused refund ${command.refundId}: ${reply.error.code} ${reply.error.detail}`,
      );
      return 'refused';
    } catch (err) {
      this.logger.warn(
        `refund ${command.refundId} of order ${command.orderId} was not answered: ${(err as Error).message}`,
      );
      return 'down';
    }
  }
}
