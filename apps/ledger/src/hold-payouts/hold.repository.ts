import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { HeldPayout } from '@payments/ledger-domain';
import { amountOf } from '@payments/money';
import { LedgerConfig } from '../config';
import { LEDGER_CONFIG } from '../tokens';

export type HoldStatus = 'held' | 'posted' | 'voided';
export type Hold = HeldPayout & { payoutId: string; status: HoldStatus };

/** Payout holds: the one row per payout that says which phase its reserve is in. */
@Injectable()
export class HoldRepository {
  private readonly s: string;

  constructor(@Inject(LEDGER_CONFIG) config: Pick<LedgerConfig, 'schema'>) {
    this.s = config.schema;
  }

  /** The payout's hold, locked for the caller's transaction. */
  async findForUpdate(m: EntityManager, payoutId: string): Promise<Hold | null> {
    const rows: {
      shop_id: string;
      provider: string;
      currency: string;
      amount: string;
      fee: string;
      status: HoldStatus;
    }[] = await m.query(
      `SELECT shop_id, provider, currency, amount::text, fee::text, status FROM "${this.s}".holds WHERE payout_id = $1 FOR UPDATE`,
      [payoutId],
    );
    const r = rows[0];
    return r
      ? {
          payoutId,
          shopId: r.shop_id,
          provider: r.provider,
          currency: r.currency,
          amount: amountOf(r.amount),
          fee: amountOf(r.fee),
          status: r.status,
        }
      : null;
  }

  async insert(m: EntityManager, h: Hold, now: Date): Promise<void> {
    await m.query(
      `INSERT INTO "${this.s}".holds (payout_id, shop_id, provider, currency, amount, fee, status, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'held', $7)`,
      [h.payoutId, h.shopId, h.provider, h.currency, h.amount.toFixed(), h.fee.toFixed(), now],
    );
  }

  /** The payouts exist (an event of theirs arrived): their holds are no orphans. */
  async confirm(m: EntityManager, payoutIds: readonly string[], now: Date): Promise<void> {
    await m.query(
      `UPDATE "${this.s}".holds SET confirmed_at = $2 WHERE payout_id = ANY($1::uuid[]) AND confirmed_at IS NULL`,
      [payoutIds, now],
    );
  }

  /** Open holds no payout ever confirmed, made before `before`, locked; those another instance holds are skipped. */
  async takeOrphans(m: EntityManager, before: Date, limit: number): Promise<string[]> {
    const rows: { payout_id: string }[] = await m.query(
      `SELECT payout_id FROM "${this.s}".holds WHERE status = 'held' AND confirmed_at IS NULL AND created_at < $1
       ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [before, limit],
    );
    return rows.map((r) => r.payout_id);
  }

  async finish(m: EntityManager, payoutId: string, status: 'posted' | 'voided', now: Date): Promise<void> {
    await m.query(`UPDATE "${this.s}".holds SET status = $2, finished_at = $3 WHERE payout_id = $1`, [
      payoutId,
      status,
      now,
    ]);
  }
}
