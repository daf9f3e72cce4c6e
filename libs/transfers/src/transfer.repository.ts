import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, FindOptionsWhere, Repository } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { TRANSFER_CODES } from '@payments/transfers-domain';
import { formatAmount } from '@payments/money';
import type { OperatorIdentity } from '@payments/contracts';
import { TransferEntity } from './transfer.entity';
import type { NewTransfer, TransferKindSpec } from './transfer-kind';
import { TRANSFER_KIND } from './tokens';

/** The kind's table: the only place of this library that speaks to the database about transfers. */
@Injectable()
export class TransferRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(TRANSFER_KIND) private readonly kind: TransferKindSpec,
  ) {}

  private rows(m: EntityManager): Repository<TransferEntity> {
    return m.getRepository(this.kind.entity);
  }

  /** The table's name, for the dispatch queue that joins it. */
  tableName(): string {
    return this.dataSource.getMetadata(this.kind.entity).tableName;
  }

  /** Locks the row for the rest of the transaction: one change at a time per transfer. */
  findForUpdate(m: EntityManager, id: string): Promise<TransferEntity | null> {
    return this.rows(m).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  findOfShop(m: EntityManager, id: string, shopId: string): Promise<TransferEntity | null> {
    return this.rows(m).findOne({ where: { id, shopId } });
  }

  /** Outside any transaction and any shop: what the dispatcher reads before it sends. */
  getById(id: string): Promise<TransferEntity | null> {
    return this.rows(this.dataSource.manager).findOne({ where: { id } });
  }

  /** Outside any transaction: a read for the merchant. */
  getOfShop(id: string, shopId: string): Promise<TransferEntity | null> {
    return this.findOfShop(this.dataSource.manager, id, shopId);
  }

  /** Outside any transaction: a read for the merchant, by its own id. */
  getByMerchantId(shopId: string, merchantId: string): Promise<TransferEntity | null> {
    return this.findByMerchantId(this.dataSource.manager, shopId, merchantId);
  }

  findByMerchantId(m: EntityManager, shopId: string, merchantId: string): Promise<TransferEntity | null> {
    const where = { shopId, [this.kind.merchantIdField]: merchantId } as FindOptionsWhere<TransferEntity>;
    return this.rows(m).findOne({ where });
  }

  /** Any shop's transfers for operators, newest first, after the cursor (created_at, id). */
  listForOperator(f: {
    id?: string;
    status?: string;
    shopId?: string;
    merchantId?: string;
    after?: { createdAt: Date; id: string };
    limit: number;
  }): Promise<TransferEntity[]> {
    const q = this.rows(this.dataSource.manager).createQueryBuilder('t');
    if (f.id) q.andWhere('t.id = :id', { id: f.id });
    if (f.status) q.andWhere('t.status = :status', { status: f.status });
    if (f.shopId) q.andWhere('t.shopId = :shopId', { shopId: f.shopId });
    if (f.merchantId) q.andWhere(`t.${this.kind.merchantIdField} = :merchantId`, { merchantId: f.merchantId });
    if (f.after)
      q.andWhere('(t.createdAt, t.id) < (:createdAt, :afterId)', { createdAt: f.after.createdAt, afterId: f.after.id });
    return q.orderBy('t.createdAt', 'DESC').addOrderBy('t.id', 'DESC').limit(f.limit).getMany();
  }

  /**
   * Who resolved the locked transfer by hand (decision 301): the operator of its resolve command, in
   * the resolve's transaction. Not on the transfer's event nor its callbacks: merchants never see it.
   */
  async recordResolver(m: EntityManager, id: string, operator: OperatorIdentity): Promise<void> {
    const meta = m.connection.getMetadata(this.kind.entity);
    const table = meta.schema ? `"${meta.schema}"."${meta.tableName}"` : `"${meta.tableName}"`;
    await m.query(`UPDATE ${table} SET resolved_by = $1 WHERE id = $2`, [JSON.stringify(operator), id]);
  }

  /** A new transfer in `registered`, not yet stored. */
  build(m: EntityManager, t: NewTransfer<TransferEntity>, now: Date): TransferEntity {
    return this.rows(m).create({
      ...t.own,
      [this.kind.merchantIdField]: t.merchantId,
      id: t.id,
      shopId: t.shopId,
      provider: t.provider,
      status: 'registered',
      statusCode: TRANSFER_CODES[this.kind.kind].registered,
      amount: formatAmount(t.cost.amount),
      currency: t.cost.currency,
      tokenStandard: t.cost.tokenStandard ?? null,
      description: t.description ?? null,
      callbackUrl: t.callbackUrl ?? null,
      needActionReason: null,
      reportedAmount: null,
      reportedCurrency: null,
      sequence: 1,
      createdAt: now,
      updatedAt: now,
    });
  }

  /** Inserts unless the id or the shop's merchant id is taken; true when inserted. */
  async insertIfAbsent(m: EntityManager, t: TransferEntity): Promise<boolean> {
    const result = await m
      .createQueryBuilder()
      .insert()
      .into(this.kind.entity)
      .values(t as QueryDeepPartialEntity<TransferEntity>)
      .orIgnore()
      .returning(['id'])
      .execute();
    return result.raw.length === 1;
  }

  /** Writes what a status transition changes on a locked, known transfer, without save()'s re-read. */
  async writeTransition(m: EntityManager, t: TransferEntity): Promise<void> {
    await this.rows(m).update(
      { id: t.id },
      {
        status: t.status,
        statusCode: t.statusCode,
        needActionReason: t.needActionReason,
        reportedAmount: t.reportedAmount,
        reportedCurrency: t.reportedCurrency,
        sequence: t.sequence,
        updatedAt: t.updatedAt,
      },
    );
  }
}
