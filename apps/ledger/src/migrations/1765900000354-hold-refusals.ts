import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A hold refused is remembered, with the answer given, under the payout or refund and the
 * command that asked for it (decision 354): the requester asks again under the same command only
 * when it handles that command again after a crash, and that ask must get the answer the merchant
 * was given, not a hold made from money booked since. The merchant's retry, even under the same
 * Idempotency-Key, is a new command, decided anew.
 */
export class LedgerHoldRefusals1765900000354 implements MigrationInterface {
  name = 'LedgerHoldRefusals1765900000354';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    await q.query(`CREATE TABLE "${s}".hold_refusals (
        held_kind text NOT NULL CHECK (held_kind IN ('payout', 'refund')),
        held_id uuid NOT NULL,
        attempt_id uuid NOT NULL,
        shop_id uuid NOT NULL,
        reply jsonb NOT NULL,
        refused_at timestamptz NOT NULL,
        PRIMARY KEY (held_kind, held_id, attempt_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    await q.query(`DROP TABLE "${s}".hold_refusals`);
  }
}
