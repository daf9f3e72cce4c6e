import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AwaitingCreditView, OperatorIdentity } from '@payments/contracts';
import { formatAmount } from '@payments/money';
import { LedgerConfig } from '../config';
import { LEDGER_CONFIG } from '../tokens';

interface AwaitingRow {
  transaction_id: string;
  shop_id: string;
  order_id: string;
  order_currency: string;
  balance_currency: string | null;
  amount: string;
  created_at: Date;
  parked: string | null;
  parked_at: Date | null;
}

const COLUMNS = `transaction_id, shop_id, order_id, order_currency, balance_currency, amount::text, created_at, parked, parked_at`;

export function awaitingCreditView(r: AwaitingRow): AwaitingCreditView {
  return {
    creditId: r.transaction_id,
    shopId: r.shop_id,
    orderId: r.order_id,
    orderCurrency: r.order_currency,
    balanceCurrency: r.balance_currency,
    amount: formatAmount(r.amount),
    createdAt: r.created_at.toISOString(),
    status: r.parked === null ? 'awaiting_rate' : 'parked',
    parked: r.parked,
    parkedAt: r.parked_at ? r.parked_at.toISOString() : null,
  };
}

/**
 * What operators read of the queue of credits waiting for a rate (decision 304) and how an admin
 * releases a parked one (decision 344). The conversion sweep's own reads and writes of the queue
 * stay in convert-rates/awaiting-rate.repository.ts.
 */
@Injectable()
export class AwaitingCreditsRepository {
  private readonly s: string;

  constructor(@Inject(LEDGER_CONFIG) config: Pick<LedgerConfig, 'schema'>) {
    this.s = config.schema;
  }

  /** Oldest first, at most `limit`, with how many wait in all; one shop's or every shop's, or one credit. */
  async list(
    m: EntityManager,
    filter: { shopId?: string; creditId?: string },
    limit: number,
  ): Promise<{ items: AwaitingCreditView[]; total: number }> {
    const where = 'WHERE ($1::uuid IS NULL OR shop_id = $1) AND ($2::uuid IS NULL OR transaction_id = $2)';
    const params = [filter.shopId ?? null, filter.creditId ?? null];
    const rows: AwaitingRow[] = await m.query(
      `SELECT ${COLUMNS} FROM "${this.s}".awaiting_rates ${where} ORDER BY created_at, transaction_id LIMIT $3`,
      [...params, limit],
    );
    const [count]: { n: number }[] = await m.query(
      `SELECT count(*)::int AS n FROM "${this.s}".awaiting_rates ${where}`,
      params,
    );
    return { items: rows.map(awaitingCreditView), total: count.n };
  }

  /**
   * The credit's queue row, locked: the sweep skips a row locked here (SKIP LOCKED) and a release
   * waits for a conversion in progress (then finds the row gone, or parked again).
   */
  async lock(m: EntityManager, creditId: string): Promise<AwaitingRow | undefined> {
    const rows: AwaitingRow[] = await m.query(
      `SELECT ${COLUMNS} FROM "${this.s}".awaiting_rates WHERE transaction_id = $1 FOR UPDATE`,
      [creditId],
    );
    return rows[0];
  }

  /** Whether a refund's hold from the order's suspense is still open (its finish un-parks the credit). */
  async refundHeld(m: EntityManager, orderId: string): Promise<boolean> {
    const rows: unknown[] = await m.query(
      `SELECT 1 FROM "${this.s}".refund_holds WHERE order_id = $1 AND source = 'suspense' AND status = 'held' LIMIT 1`,
      [orderId],
    );
    return rows.length > 0;
  }

  /** Un-parks the credit (the next sweep takes it) and keeps who released it, why and from what. */
  async release(
    m: EntityManager,
    row: AwaitingRow,
    reason: string,
    operator: Pick<OperatorIdentity, 'id' | 'name'>,
    now: Date,
  ): Promise<AwaitingRow> {
    await m.query(`UPDATE "${this.s}".awaiting_rates SET parked = NULL, parked_at = NULL WHERE transaction_id = $1`, [
      row.transaction_id,
    ]);
    await m.query(
      `INSERT INTO "${this.s}".credit_releases (transaction_id, shop_id, was_parked, reason, operator_id, operator_name, released_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [row.transaction_id, row.shop_id, row.parked, reason, operator.id, operator.name, now],
    );
    return { ...row, parked: null, parked_at: null };
  }

  /** Whether the credit is an order's credit at all (a release of an unknown id is a 404). */
  async isCredit(m: EntityManager, creditId: string): Promise<boolean> {
    const rows: unknown[] = await m.query(
      `SELECT 1 FROM "${this.s}".transactions WHERE id = $1 AND kind = 'order_completed'`,
      [creditId],
    );
    return rows.length > 0;
  }
}
