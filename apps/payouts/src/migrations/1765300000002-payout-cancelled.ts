import { MigrationInterface, QueryRunner } from 'typeorm';

/** A payout via payment page whose link expired unfilled becomes `cancelled` (issue 20). */
export class PayoutCancelled1765300000002 implements MigrationInterface {
  name = 'PayoutCancelled1765300000002';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'payouts';
    await q.query(`ALTER TABLE "${s}".payouts DROP CONSTRAINT payouts_status`);
    await q.query(`ALTER TABLE "${s}".payouts ADD CONSTRAINT payouts_status
      CHECK (status IN ('registered','in_progress','need_action','completed','failed','cancelled'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'payouts';
    await q.query(`ALTER TABLE "${s}".payouts DROP CONSTRAINT payouts_status`);
    await q.query(`ALTER TABLE "${s}".payouts ADD CONSTRAINT payouts_status
      CHECK (status IN ('registered','in_progress','need_action','completed','failed'))`);
  }
}
