import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { PayoutEntity } from './payout.entity';

@Injectable()
export class PayoutRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Locks the payout row for the rest of the transaction: one change at a time per payout. */
  findForUpdate(m: EntityManager, id: string): Promise<PayoutEntity | null> {
    return m.getRepository(PayoutEntity).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  findOfShop(id: string, shopId: string, m: EntityManager = this.dataSource.manager): Promise<PayoutEntity | null> {
    return m.getRepository(PayoutEntity).findOne({ where: { id, shopId } });
  }

  findByMerchantPayoutId(m: EntityManager, shopId: string, merchantPayoutId: string): Promise<PayoutEntity | null> {
    return m.getRepository(PayoutEntity).findOne({ where: { shopId, merchantPayoutId } });
  }

  /** Inserts unless the id or the shop's merchant payout id is taken; true when inserted. */
  async insertIfAbsent(m: EntityManager, payout: PayoutEntity): Promise<boolean> {
    const result = await m
      .createQueryBuilder()
      .insert()
      .into(PayoutEntity)
      .values(payout as QueryDeepPartialEntity<PayoutEntity>)
      .orIgnore()
      .returning(['id'])
      .execute();
    return result.raw.length === 1;
  }

  save(m: EntityManager, payout: PayoutEntity): Promise<PayoutEntity> {
    return m.getRepository(PayoutEntity).save(payout);
  }
}
