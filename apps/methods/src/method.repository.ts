import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { MethodDirection } from '@payments/contracts';
import { entityOf, MethodEntity } from './method.entity';

@Injectable()
export class MethodRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  list(direction: MethodDirection, shopId: string, includeDisabled: boolean): Promise<MethodEntity[]> {
    return this.dataSource.getRepository(entityOf(direction)).find({
      where: includeDisabled ? { shopId } : { shopId, enabled: true },
      order: { code: 'ASC' },
    });
  }

  findByCode(direction: MethodDirection, shopId: string, code: string): Promise<MethodEntity | null> {
    return this.dataSource.getRepository(entityOf(direction)).findOne({ where: { shopId, code } });
  }

  findById(m: EntityManager, direction: MethodDirection, id: string, lock = false): Promise<MethodEntity | null> {
    return m
      .getRepository(entityOf(direction))
      .findOne({ where: { id }, ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
  }

  findCodeOwner(
    m: EntityManager,
    direction: MethodDirection,
    shopId: string,
    code: string,
  ): Promise<MethodEntity | null> {
    return m.getRepository(entityOf(direction)).findOne({ where: { shopId, code } });
  }

  /** Inserts unless the id or the shop's code is taken; true when inserted. */
  async insertIfAbsent(m: EntityManager, direction: MethodDirection, method: MethodEntity): Promise<boolean> {
    const result = await m
      .createQueryBuilder()
      .insert()
      .into(entityOf(direction))
      .values(method)
      .orIgnore()
      .returning(['id'])
      .execute();
    return result.raw.length === 1;
  }

  save(m: EntityManager, direction: MethodDirection, method: MethodEntity): Promise<MethodEntity> {
    return m.getRepository(entityOf(direction)).save(method);
  }

  async delete(m: EntityManager, direction: MethodDirection, id: string): Promise<void> {
    await m.getRepository(entityOf(direction)).delete({ id });
  }
}
