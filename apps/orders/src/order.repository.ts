import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { OrderEntity, PaymentAttemptEntity } from './order.entity';

export interface RefundRow {
  refundId: string;
  amount: string;
  currency: string;
  createdAt: Date;
}

@Injectable()
export class OrderRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Locks the order row for the rest of the transaction: one change at a time per order. */
  findForUpdate(m: EntityManager, id: string): Promise<OrderEntity | null> {
    return m.getRepository(OrderEntity).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  findOfShop(id: string, shopId: string, m: EntityManager = this.dataSource.manager): Promise<OrderEntity | null> {
    return m.getRepository(OrderEntity).findOne({ where: { id, shopId } });
  }

  findByMerchantOrderId(m: EntityManager, shopId: string, merchantOrderId: string): Promise<OrderEntity | null> {
    return m.getRepository(OrderEntity).findOne({ where: { shopId, merchantOrderId } });
  }

  payments(orderId: string, m: EntityManager = this.dataSource.manager): Promise<PaymentAttemptEntity[]> {
    return m
      .getRepository(PaymentAttemptEntity)
      .find({ where: { orderId }, order: { createdAt: 'ASC', paymentId: 'ASC' } });
  }

  async refunds(orderId: string, m: EntityManager = this.dataSource.manager): Promise<RefundRow[]> {
    const rows: { id: string; amount: string; currency: string; created_at: Date }[] = await m.query(
      `SELECT id, amount::text, currency, created_at FROM "${m.connection.driver.schema ?? 'orders'}".refunds WHERE order_id = $1 ORDER BY created_at, id`,
      [orderId],
    );
    return rows.map((r) => ({ refundId: r.id, amount: r.amount, currency: r.currency, createdAt: r.created_at }));
  }

  /** Inserts unless the id or the shop's merchant order id is taken; true when inserted. */
  async insertIfAbsent(m: EntityManager, order: OrderEntity): Promise<boolean> {
    const result = await m
      .createQueryBuilder()
      .insert()
      .into(OrderEntity)
      .values(order as QueryDeepPartialEntity<OrderEntity>)
      .orIgnore()
      .returning(['id'])
      .execute();
    return result.raw.length === 1;
  }

  save(m: EntityManager, order: OrderEntity): Promise<OrderEntity> {
    return m.getRepository(OrderEntity).save(order);
  }

  /** Records a new attempt (the caller holds the order's lock, so nobody records it meanwhile). */
  async insertAttempt(m: EntityManager, attempt: PaymentAttemptEntity): Promise<void> {
    await m.getRepository(PaymentAttemptEntity).insert(attempt as QueryDeepPartialEntity<PaymentAttemptEntity>);
  }

  /** Records a new attempt unless one with its id exists (which is kept as it is); true when inserted. */
  async insertAttemptIfAbsent(m: EntityManager, attempt: PaymentAttemptEntity): Promise<boolean> {
    const result = await m
      .createQueryBuilder()
      .insert()
      .into(PaymentAttemptEntity)
      .values(attempt as QueryDeepPartialEntity<PaymentAttemptEntity>)
      .orIgnore()
      .returning(['paymentId'])
      .execute();
    return result.raw.length === 1;
  }

  /** Writes an attempt that is known to exist (read in this transaction) without re-reading it. */
  async updateAttempt(m: EntityManager, attempt: PaymentAttemptEntity): Promise<void> {
    await m.getRepository(PaymentAttemptEntity).update(
      { orderId: attempt.orderId, paymentId: attempt.paymentId },
      {
        status: attempt.status,
        amount: attempt.amount,
        currency: attempt.currency,
        statusCode: attempt.statusCode,
        updatedAt: attempt.updatedAt,
      },
    );
  }

  /**
   * The order with this id and the shop's order with this merchant order id, in one query: what
   * the create command checks before inserting (usually neither exists).
   */
  async findSameOrTaken(
    m: EntityManager,
    id: string,
    shopId: string,
    merchantOrderId: string,
  ): Promise<{ same: OrderEntity | null; taken: OrderEntity | null }> {
    const rows = await m.getRepository(OrderEntity).find({
      where: [
        { id, shopId },
        { shopId, merchantOrderId },
      ],
    });
    return {
      same: rows.find((r) => r.id === id) ?? null,
      taken: rows.find((r) => r.id !== id && r.merchantOrderId === merchantOrderId) ?? null,
    };
  }

  /**
   * The attempt a provider callback without a paymentId belongs to: our newest attempt of the order
   * sent to that provider (its dispatch row exists from the order's creation, even before the
   * provider accepted it), else none.
   */
  async latestDispatchedPaymentId(m: EntityManager, orderId: string, provider: string): Promise<string | null> {
    const rows: { payment_id: string }[] = await m.query(
      `SELECT payment_id FROM "${m.connection.driver.schema ?? 'orders'}".provider_dispatches WHERE order_id = $1 AND provider = $2 ORDER BY created_at DESC, payment_id DESC LIMIT 1`,
      [orderId, provider],
    );
    return rows[0]?.payment_id ?? null;
  }

  findAttempt(m: EntityManager, orderId: string, paymentId: string): Promise<PaymentAttemptEntity | null> {
    return m.getRepository(PaymentAttemptEntity).findOne({ where: { orderId, paymentId } });
  }
}
