import { MigrationInterface, QueryRunner } from 'typeorm';

/** Who resolved a payout by hand: the operator of its payout.resolve command (decision 301). */
export class PayoutResolvedBy1766200000302 implements MigrationInterface {
  name = 'PayoutResolvedBy1766200000302';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'payouts';
    await q.query(`ALTER TABLE "${s}".payouts ADD COLUMN IF NOT EXISTS resolved_by jsonb`);
    await q.query(
      `COMMENT ON COLUMN "${s}".payouts.resolved_by IS 'The operator (id, name, role) of the payout.resolve that resolved this payout by hand (decision 301); null otherwise'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'payouts';
    await q.query(`ALTER TABLE "${s}".payouts DROP COLUMN resolved_by`);
  }
}
