import { MigrationInterface, QueryRunner } from 'typeorm';

/** Who resolved an order by hand: the operator of its order.resolve command (decision 301). */
export class ResolvedBy1766200000301 implements MigrationInterface {
  name = 'ResolvedBy1766200000301';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'orders';
    await q.query(`ALTER TABLE "${s}".orders ADD COLUMN IF NOT EXISTS resolved_by jsonb`);
    await q.query(
      `COMMENT ON COLUMN "${s}".orders.resolved_by IS 'The operator (id, name, role) of the order.resolve that resolved this order by hand (decision 301); null otherwise'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'orders';
    await q.query(`ALTER TABLE "${s}".orders DROP COLUMN resolved_by`);
  }
}
