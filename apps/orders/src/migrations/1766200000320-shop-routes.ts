import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Routing rules per shop and method (decision 320): an ordered list of providers with their
 * conditions, set by operators through the backoffice. Read with the shop's settings (one
 * statement, decision 321); at most a handful of rows per shop.
 */
export class ShopRoutes1766200000320 implements MigrationInterface {
  name = 'ShopRoutes1766200000320';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'orders';
    await q.query(`CREATE TABLE IF NOT EXISTS "${s}".shop_routes (
      shop_id uuid NOT NULL,
      method text NOT NULL,
      providers jsonb NOT NULL CHECK (jsonb_typeof(providers) = 'array' AND jsonb_array_length(providers) > 0),
      updated_at timestamptz NOT NULL,
      updated_by jsonb NOT NULL,
      PRIMARY KEY (shop_id, method)
    )`);
    await q.query(
      `COMMENT ON TABLE "${s}".shop_routes IS 'Routing rules per shop and method: providers in order, each with optional conditions (decision 320)'`,
    );
    await q.query(
      `COMMENT ON COLUMN "${s}".shop_routes.updated_by IS 'The operator (id, name, role) who set the route last (decision 301)'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'orders';
    await q.query(`DROP TABLE "${s}".shop_routes`);
  }
}
