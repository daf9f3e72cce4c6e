import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { OrderEntity, PaymentAttemptEntity } from './order.entity';

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
    return m.getRepository(PaymentAttemptEntity).find({ where: { orderId }, order: { createdAt: 'ASC', paymentId: 'ASC' } });
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

  saveAttempt(m: EntityManager, attempt: PaymentAttemptEntity): Promise<PaymentAttemptEntity> {
    return m.getRepository(PaymentAttemptEntity).save(attempt);
  }

  findAttempt(m: EntityManager, orderId: string, paymentId: string): Promise<PaymentAttemptEntity | null> {
    return m.getRepository(PaymentAttemptEntity).findOne({ where: { orderId, paymentId } });
  }
}
