import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { HeldPayout } from '@payments/ledger-domain';
import { amountOf } from '@payments/money';
import { LedgerConfig } from '../config';
import { LEDGER_CONFIG } from '../tokens';

export type HoldStatus = 'held' | 'posted' | 'voided';
/** `generation` counts the holds of one payout: a voided hold asked for again is held anew (decision 355). */
export type Hold = HeldPayout & { payoutId: string; status: HoldStatus; generation: number };
/** A hold as stored: `confirmed` once an event of its payout arrived, so the payout exists (decision 277). */
export type StoredHold = Hold & { confirmed: boolean };

/** Payout holds: the one row per payout that says which phase its reserve is in. */
@Injectable()
export class HoldRepository {
  private readonly s: string;

  constructor(@Inject(LEDGER_CONFIG) config: Pick<LedgerConfig, 'schema'>) {
    this.s = config.schema;
  }

  /** The payout's hold, locked for the caller's transaction. */
  async findForUpdate(m: EntityManager, payoutId: string): Promise<StoredHold | null> {
    const rows: {
      shop_id: string;
      provider: string;
      currency: string;
      amount: string;
      fee: string;
      status: HoldStatus;
      generation: number;
      confirmed: boolean;
    }[] = await m.query(
      `SELECT shop_id, provider, currency, amount::text, fee::text, status, generation, confirmed_at IS NOT NULL AS confirmed
         FROM "${this.s}".holds WHERE payout_id = $1 FOR UPDATE`,
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
          generation: r.generation,
          confirmed: r.confirmed,
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

  /** A voided hold of a payout never seen made again as the next generation (decision 355): open from `now`. */
  async holdAgain(m: EntityManager, h: Hold, now: Date): Promise<void> {
    const [rows]: [unknown[], number] = await m.query(
      `UPDATE "${this.s}".holds
          SET shop_id = $2, provider = $3, currency = $4, amount = $5, fee = $6, status = 'held', generation = $7,
              created_at = $8, finished_at = NULL
        WHERE payout_id = $1 AND status = 'voided' AND confirmed_at IS NULL
        RETURNING payout_id`,
      [h.payoutId, h.shopId, h.provider, h.currency, h.amount.toFixed(), h.fee.toFixed(), h.generation, now],
    );
    if (rows.length !== 1) throw new Error(`payout ${h.payoutId}: no voided hold to hold again`);
  }

  /** The payouts exist (an event of theirs arrived): their holds are no orphans. */
  async confirm(m: EntityManager, payoutIds: readonly string[], now: Date): Promise<void> {
    await m.query(
      `UPDATE "${this.s}".holds SET confirmed_at = $2 WHERE payout_id = ANY($1::uuid[]) AND confirmed_at IS NULL`,
      [payoutIds, now],
    );
  }

  /**
   * The oldest open hold no payout ever confirmed, made before `before`, locked (FOR UPDATE SKIP
   * LOCKED: another instance's is passed over), leaving out `skip` (those that failed this run);
   * null when there is none.
   */
  async takeOrphan(m: EntityManager, before: Date, skip: readonly string[]): Promise<string | null> {
    const rows: { payout_id: string }[] = await m.query(
      `SELECT payout_id FROM "${this.s}".holds
        WHERE status = 'held' AND confirmed_at IS NULL AND created_at < $1 AND payout_id <> ALL($2::uuid[])
        ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED`,
      [before, skip],
    );
    return rows[0]?.payout_id ?? null;
  }

  async finish(m: EntityManager, payoutId: string, status: 'posted' | 'voided', now: Date): Promise<void> {
    await m.query(`UPDATE "${this.s}".holds SET status = $2, finished_at = $3 WHERE payout_id = $1`, [
      payoutId,
      status,
      now,
    ]);
  }
}
