import { Inject, Injectable, Logger } from '@nestjs/common';
import { OrderCommandTypes, OrderView, commandTopic } from '@payments/contracts';
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
}
