import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { P2pEntity } from './p2p.entity';

@Injectable()
export class P2pRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Locks the row for the rest of the transaction: one change at a time per P2P transaction. */
  findForUpdate(m: EntityManager, id: string): Promise<P2pEntity | null> {
    return m.getRepository(P2pEntity).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  findOfShop(id: string, shopId: string, m: EntityManager = this.dataSource.manager): Promise<P2pEntity | null> {
    return m.getRepository(P2pEntity).findOne({ where: { id, shopId } });
  }

  findByMerchantP2pId(m: EntityManager, shopId: string, merchantP2pId: string): Promise<P2pEntity | null> {
    return m.getRepository(P2pEntity).findOne({ where: { shopId, merchantP2pId } });
  }

  /** Inserts unless the id or the shop's merchant p2p id is taken; true when inserted. */
  async insertIfAbsent(m: EntityManager, p2p: P2pEntity): Promise<boolean> {
    const result = await m
      .createQueryBuilder()
      .insert()
      .into(P2pEntity)
      .values(p2p as QueryDeepPartialEntity<P2pEntity>)
      .orIgnore()
      .returning(['id'])
      .execute();
    return result.raw.length === 1;
  }

  save(m: EntityManager, p2p: P2pEntity): Promise<P2pEntity> {
    return m.getRepository(P2pEntity).save(p2p);
  }
}
