import { MigrationInterface, QueryRunner } from 'typeorm';

/** An order may carry its own callback URL, overriding the shop's for its callbacks. */
export class OrderCallbackUrl1764200000000 implements MigrationInterface {
  name = 'OrderCallbackUrl1764200000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'orders';
    await q.query(`ALTER TABLE "${s}".orders ADD COLUMN callback_url text`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'orders';
    await q.query(`ALTER TABLE "${s}".orders DROP COLUMN callback_url`);
  }
}
