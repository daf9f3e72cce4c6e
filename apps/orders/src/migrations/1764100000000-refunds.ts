import { MigrationInterface, QueryRunner } from 'typeorm';

export class Refunds1764100000000 implements MigrationInterface {
  name = 'Refunds1764100000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'orders';
    await q.query(`
      CREATE TABLE "${s}".refunds (
        id uuid PRIMARY KEY,
        order_id uuid NOT NULL REFERENCES "${s}".orders(id),
        amount numeric(38, 18) NOT NULL CHECK (amount > 0),
        currency text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX refunds_order ON "${s}".refunds (order_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'orders';
    await q.query(`DROP TABLE "${s}".refunds`);
  }
}
