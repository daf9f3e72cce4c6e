import { MigrationInterface, QueryRunner } from 'typeorm';

/** The operators' order list (the console's need_action queue): by status, newest first. */
export class OperatorOrderList1765100000002 implements MigrationInterface {
  name = 'OperatorOrderList1765100000002';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'orders';
    await q.query(
      `CREATE INDEX IF NOT EXISTS orders_status_created ON "${s}".orders (status, created_at DESC, id DESC)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'orders';
    await q.query(`DROP INDEX "${s}".orders_status_created`);
  }
}
