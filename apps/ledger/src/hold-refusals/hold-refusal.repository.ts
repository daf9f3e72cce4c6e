import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { LedgerConfig } from '../config';
import { LEDGER_CONFIG } from '../tokens';

/** What a hold is asked for: the payouts service's payout, or the orders service's refund. */
export type HeldKind = 'payout' | 'refund';

export interface HoldRefusal {
  kind: HeldKind;
  /** The payout's or the refund's id. */
  id: string;
  /** The requester's command the ask served (its envelope's id). */
  attemptId: string;
  shopId: string;
  detail: string;
}

/**
 * Refusals of a hold for want of credit or balance, kept under the command that asked (decision
 * 354). A command is handled again after a crash of its requester, or of the ledger, and its ask
 * then gets the answer it had, not one from the books as they are since; a new command (the
 * merchant's retry, even under the same Idempotency-Key and so the same id) is decided anew.
 */
@Injectable()
export class HoldRefusalRepository {
  private readonly s: string;

  constructor(@Inject(LEDGER_CONFIG) config: Pick<LedgerConfig, 'schema'>) {
    this.s = config.schema;
  }

  /** Takes the payout's or refund's lock until the caller's transaction ends: its asks are decided one at a time. */
  async lock(m: EntityManager, kind: HeldKind, id: string): Promise<void> {
    await m.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`ledger.${kind}:${id.toLowerCase()}`]);
  }

  /** The detail of the refusal this command was given, if it was refused. */
  async find(m: EntityManager, kind: HeldKind, id: string, attemptId: string | undefined): Promise<string | null> {
    if (attemptId === undefined) return null;
    const rows: { detail: string }[] = await m.query(
      `SELECT detail FROM "${this.s}".hold_refusals WHERE held_kind = $1 AND held_id = $2 AND attempt_id = $3`,
      [kind, id, attemptId],
    );
    return rows[0]?.detail ?? null;
  }

  async record(m: EntityManager, r: HoldRefusal, now: Date): Promise<void> {
    await m.query(
      `INSERT INTO "${this.s}".hold_refusals (held_kind, held_id, attempt_id, shop_id, detail, refused_at)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (held_kind, held_id, attempt_id) DO NOTHING`,
      [r.kind, r.id, r.attemptId, r.shopId, r.detail, now],
    );
  }
}
