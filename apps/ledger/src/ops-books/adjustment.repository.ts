import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AdjustmentView, OperatorIdentity } from '@payments/contracts';
import { Amount, formatAmount } from '@payments/money';
import { LedgerConfig } from '../config';
import { LEDGER_CONFIG } from '../tokens';

interface AdjustmentRow {
  id: string;
  shop_id: string;
  idempotency_key: string;
  currency: string;
  amount: string;
  reason: string;
  operator_id: string;
  operator_name: string;
  transaction_id: string;
  available_after: string;
  created_at: Date;
}

export interface NewAdjustment {
  id: string;
  shopId: string;
  idempotencyKey: string;
  currency: string;
  amount: Amount;
  reason: string;
  operator: Pick<OperatorIdentity, 'id' | 'name'>;
  transactionId: string;
  availableAfter: Amount;
  createdAt: Date;
}

/** An adjustment as the ledger stored it; `replayed` says whether this answer is a first one. */
export function adjustmentView(r: AdjustmentRow, replayed: boolean): AdjustmentView {
  return {
    id: r.id,
    shopId: r.shop_id,
    currency: r.currency,
    amount: formatAmount(r.amount),
    reason: r.reason,
    operator: { id: r.operator_id, name: r.operator_name },
    transactionId: r.transaction_id,
    availableAfter: formatAmount(r.available_after),
    createdAt: r.created_at.toISOString(),
    replayed,
  };
}

const COLUMNS = `id, shop_id, idempotency_key, currency, amount::text, reason, operator_id, operator_name,
  transaction_id, available_after::text, created_at`;

/** Operators' manual adjustments (decision 308): one row per shop and idempotency key, never changed. */
@Injectable()
export class AdjustmentRepository {
  private readonly s: string;

  constructor(@Inject(LEDGER_CONFIG) config: Pick<LedgerConfig, 'schema'>) {
    this.s = config.schema;
  }

  async find(m: EntityManager, shopId: string, idempotencyKey: string): Promise<AdjustmentRow | undefined> {
    const rows: AdjustmentRow[] = await m.query(
      `SELECT ${COLUMNS} FROM "${this.s}".adjustments WHERE shop_id = $1 AND idempotency_key = $2`,
      [shopId, idempotencyKey],
    );
    return rows[0];
  }

  async insert(m: EntityManager, a: NewAdjustment): Promise<AdjustmentRow> {
    const rows: AdjustmentRow[] = await m.query(
      `INSERT INTO "${this.s}".adjustments (id, shop_id, idempotency_key, currency, amount, reason, operator_id,
         operator_name, transaction_id, available_after, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${COLUMNS}`,
      [
        a.id,
        a.shopId,
        a.idempotencyKey,
        a.currency,
        a.amount.toFixed(),
        a.reason,
        a.operator.id,
        a.operator.name,
        a.transactionId,
        a.availableAfter.toFixed(),
        a.createdAt,
      ],
    );
    return rows[0];
  }

  /** Who posted each of these adjustments and why, by adjustment id. */
  async notes(
    m: EntityManager,
    ids: readonly string[],
  ): Promise<Map<string, { reason: string; operator: { id: string; name: string } }>> {
    if (ids.length === 0) return new Map();
    const rows: AdjustmentRow[] = await m.query(
      `SELECT ${COLUMNS} FROM "${this.s}".adjustments WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    return new Map(
      rows.map((r) => [r.id, { reason: r.reason, operator: { id: r.operator_id, name: r.operator_name } }]),
    );
  }
}
