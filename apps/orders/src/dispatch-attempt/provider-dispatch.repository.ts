import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { DispatchQueue } from '@payments/provider-dispatch';
import { ORDERS_CONFIG, OrdersConfig } from '../config';
import type { OrderEntity } from '../order.entity';
import { PAYMENT_PROVIDER, PaymentProvider } from './payment-provider';

/**
 * The queue of payment attempts to send (libs/provider-dispatch), under the names orders gave its
 * table before the queue was shared: `payment_id` is the dispatch id, `order_id` the reference.
 */
@Injectable()
export class ProviderDispatchRepository {
  readonly queue: DispatchQueue;

  constructor(
    @InjectDataSource() dataSource: DataSource,
    @Inject(ORDERS_CONFIG) config: OrdersConfig,
    @Inject(PAYMENT_PROVIDER) private readonly provider: PaymentProvider,
  ) {
    this.queue = new DispatchQueue(dataSource, {
      schema: config.schema,
      table: 'provider_dispatches',
      idColumn: 'payment_id',
      referenceColumn: 'order_id',
      aggregateTable: 'orders',
      // What a send needs of its order (AttemptDispatcher.send), read with the claim.
      aggregateColumns: { cardToken: 'a.card_token', app: 'a.instructions IS NOT NULL' },
    });
  }

  /**
   * Queues a payment attempt of an order — its first, in the transaction that creates it, or a
   * failover's (decision 322) — to `provider` (the default adapter's when not named); the NOTIFY
   * is delivered at commit. Returns our payment id of the attempt.
   */
  async enqueue(
    m: EntityManager,
    order: OrderEntity,
    now: Date,
    provider: string = this.provider.code,
  ): Promise<string> {
    const paymentId = newPaymentId();
    await this.queue.enqueue(
      m,
      {
        dispatchId: paymentId,
        referenceId: order.id,
        provider,
        amount: order.amount,
        currency: order.currency,
        tokenStandard: order.tokenStandard,
      },
      now,
    );
    return paymentId;
  }

  /** An attempt was queued by a statement of the caller's own (the one-statement create): wake the dispatcher once committed. */
  wake(m: EntityManager): void {
    this.queue.work.wake(m);
  }
}

/** Our id of a new payment attempt: what the provider sees as the payment id. */
export function newPaymentId(): string {
  return `pay_${randomUUID()}`;
}
