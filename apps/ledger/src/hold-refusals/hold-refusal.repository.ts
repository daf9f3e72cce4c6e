import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Reply } from '@payments/contracts';
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
  /** The refusal as it was answered. */
  reply: Reply<never>;
}

/**
 * Refusals of a hold, kept with their answer under the command that asked (decision 354): for want
 * of credit or balance, and a payout's fee above its amount (the fee schedule may change). A command is handled again after a crash of its requester, or of the ledger, and its ask
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

  /** The refusal this command was given, if it was refused. */
  async find(
    m: EntityManager,
    kind: HeldKind,
    id: string,
    attemptId: string | undefined,
  ): Promise<Reply<never> | null> {
    if (attemptId === undefined) return null;
    const rows: { reply: Reply<never> }[] = await m.query(
      `SELECT reply FROM "${this.s}".hold_refusals WHERE held_kind = $1 AND held_id = $2 AND attempt_id = $3`,
      [kind, id, attemptId],
    );
    return rows[0]?.reply ?? null;
  }

  /** Keeps the refusal under its command, when the requester named one (decision 354); answers it. */
  async refuse(
    m: EntityManager,
    r: Omit<HoldRefusal, 'attemptId'> & { attemptId: string | undefined },
    now: Date,
  ): Promise<Reply<never>> {
    if (r.attemptId !== undefined)
      await m.query(
        `INSERT INTO "${this.s}".hold_refusals (held_kind, held_id, attempt_id, shop_id, reply, refused_at)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (held_kind, held_id, attempt_id) DO NOTHING`,
        [r.kind, r.id, r.attemptId, r.shopId, JSON.stringify(r.reply), now],
      );
    return r.reply;
  }

  /** Deletes up to `limit` refusals kept since before `before` (decision 356); answers how many. */
  async purge(m: EntityManager, before: Date, limit: number): Promise<number> {
    const [, deleted]: [unknown[], number] = await m.query(
      `DELETE FROM "${this.s}".hold_refusals WHERE ctid IN (
         SELECT ctid FROM "${this.s}".hold_refusals WHERE refused_at < $1 ORDER BY refused_at LIMIT $2)`,
      [before, limit],
    );
    return deleted;
  }
}
