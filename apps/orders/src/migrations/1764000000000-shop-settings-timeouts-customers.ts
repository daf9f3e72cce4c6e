import { MigrationInterface, QueryRunner } from 'typeorm';

export class ShopSettingsTimeoutsCustomers1764000000000 implements MigrationInterface {
  name = 'ShopSettingsTimeoutsCustomers1764000000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'orders';
    await q.query(`
      CREATE TABLE "${s}".shop_settings (
        shop_id uuid PRIMARY KEY,
        version int NOT NULL,
        settings jsonb NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`ALTER TABLE "${s}".orders ADD COLUMN processing_deadline timestamptz, ADD COLUMN customer_id uuid`);
    await q.query(`CREATE INDEX orders_open_deadline ON "${s}".orders (processing_deadline)
      WHERE processing_deadline IS NOT NULL AND status IN ('registered', 'in_progress', 'need_action')`);
    await q.query(`
      CREATE TABLE "${s}".customers (
        id uuid PRIMARY KEY,
        shop_id uuid NOT NULL,
        external_id text,
        email text,
        phone text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE UNIQUE INDEX customers_external ON "${s}".customers (shop_id, external_id) WHERE external_id IS NOT NULL`,
    );
    await q.query(
      `CREATE UNIQUE INDEX customers_contact ON "${s}".customers (shop_id, lower(email), phone) WHERE external_id IS NULL AND email IS NOT NULL AND phone IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'orders';
    await q.query(`DROP TABLE "${s}".customers`);
    await q.query(`ALTER TABLE "${s}".orders DROP COLUMN processing_deadline, DROP COLUMN customer_id`);
    await q.query(`DROP TABLE "${s}".shop_settings`);
  }
}
