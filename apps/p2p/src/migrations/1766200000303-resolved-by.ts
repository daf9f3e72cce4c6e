import { MigrationInterface, QueryRunner } from 'typeorm';

/** Who resolved a P2P transaction by hand: the operator of its p2p.resolve command (decision 301). */
export class P2pResolvedBy1766200000303 implements MigrationInterface {
  name = 'P2pResolvedBy1766200000303';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'p2p';
    await q.query(`ALTER TABLE "${s}".transactions ADD COLUMN IF NOT EXISTS resolved_by jsonb`);
    await q.query(
      `COMMENT ON COLUMN "${s}".transactions.resolved_by IS 'The operator (id, name, role) of the p2p.resolve that resolved this transaction by hand (decision 301); null otherwise'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'p2p';
    await q.query(`ALTER TABLE "${s}".transactions DROP COLUMN resolved_by`);
  }
}
