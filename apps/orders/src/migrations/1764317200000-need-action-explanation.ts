import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Why an order waits in need_action (rule, expected and reported amounts, the range in force,
 * what resolves it), kept as decided. Orders already waiting have none: their view shows the
 * status code and the reported amount as before.
 */
export class NeedActionExplanation1764317200000 implements MigrationInterface {
  name = 'NeedActionExplanation1764317200000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'orders';
    await q.query(`ALTER TABLE "${s}".orders ADD COLUMN need_action jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'orders';
    await q.query(`ALTER TABLE "${s}".orders DROP COLUMN need_action`);
  }
}
