import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { HeldRefund, RefundHoldSource } from '@payments/ledger-domain';
import { amountOf } from '@payments/money';
import { LedgerConfig } from '../config';
import { LEDGER_CONFIG } from '../tokens';
import type { HoldStatus } from '../hold-payouts/hold.repository';

/** `generation` counts the holds of one refund: a voided hold asked for again is held anew (decision 355). */
export type RefundHold = HeldRefund & { refundId: string; orderId: string; status: HoldStatus; generation: number };

interface Row {
  order_id: string;
  shop_id: string;
  provider: string;
  order_currency: string;
  amount: string;
  credit_currency: string;
  debit: string;
  source: RefundHoldSource;
  status: HoldStatus;
  generation: number;
}

/** Refund holds (decision 276): the one row per refund that says which phase its reserve is in. */
@Injectable()
export class RefundHoldRepository {
  private readonly s: string;

  constructor(@Inject(LEDGER_CONFIG) config: Pick<LedgerConfig, 'schema'>) {
    this.s = config.schema;
  }

  /** The refund's hold, locked for the caller's transaction. */
  async findForUpdate(m: EntityManager, refundId: string): Promise<RefundHold | null> {
    const rows: Row[] = await m.query(
      `SELECT order_id, shop_id, provider, order_currency, amount::text, credit_currency, debit::text, source, status,
              generation
         FROM "${this.s}".refund_holds WHERE refund_id = $1 FOR UPDATE`,
      [refundId],
    );
    const r = rows[0];
    return r
      ? {
          refundId,
          orderId: r.order_id,
          shopId: r.shop_id,
          provider: r.provider,
          orderCurrency: r.order_currency,
          amount: amountOf(r.amount),
          creditCurrency: r.credit_currency,
          debit: amountOf(r.debit),
          source: r.source,
          status: r.status,
          generation: r.generation,
        }
      : null;
  }

  async insert(m: EntityManager, h: RefundHold, now: Date): Promise<void> {
    await m.query(
      `INSERT INTO "${this.s}".refund_holds
         (refund_id, order_id, shop_id, provider, order_currency, amount, credit_currency, debit, source, status, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'held', $10)`,
      [
        h.refundId,
        h.orderId,
        h.shopId,
        h.provider,
        h.orderCurrency,
        h.amount.toFixed(),
        h.creditCurrency,
        h.debit.toFixed(),
        h.source,
        now,
      ],
    );
  }

  /** A voided hold made again as the next generation (decision 355): open from `now`. */
  async holdAgain(m: EntityManager, h: RefundHold, now: Date): Promise<void> {
    const [rows]: [unknown[], number] = await m.query(
      `UPDATE "${this.s}".refund_holds
          SET order_id = $2, shop_id = $3, provider = $4, order_currency = $5, amount = $6, credit_currency = $7,
              debit = $8, source = $9, status = 'held', generation = $10, created_at = $11, finished_at = NULL
        WHERE refund_id = $1 AND status = 'voided'
        RETURNING refund_id`,
      [
        h.refundId,
        h.orderId,
        h.shopId,
        h.provider,
        h.orderCurrency,
        h.amount.toFixed(),
        h.creditCurrency,
        h.debit.toFixed(),
        h.source,
        h.generation,
        now,
      ],
    );
    if (rows.length !== 1) throw new Error(`refund ${h.refundId}: no voided hold to hold again`);
  }

  /** The oldest open hold of a refund never booked, made before `before`, as HoldRepository.takeOrphan. */
  async takeOrphan(m: EntityManager, before: Date, skip: readonly string[]): Promise<string | null> {
    const rows: { refund_id: string }[] = await m.query(
      `SELECT refund_id FROM "${this.s}".refund_holds
        WHERE status = 'held' AND created_at < $1 AND refund_id <> ALL($2::uuid[])
        ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED`,
      [before, skip],
    );
    return rows[0]?.refund_id ?? null;
  }

  async finish(m: EntityManager, refundId: string, status: 'posted' | 'voided', now: Date): Promise<void> {
    await m.query(`UPDATE "${this.s}".refund_holds SET status = $2, finished_at = $3 WHERE refund_id = $1`, [
      refundId,
      status,
      now,
    ]);
  }
}
