import { MigrationInterface, QueryRunner } from 'typeorm';

export class Init1763700000000 implements MigrationInterface {
  name = 'Init1763700000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'gateway';
    await q.query(`
      CREATE TABLE "${s}".companies (
        id uuid PRIMARY KEY,
        name text NOT NULL,
        use_customer_data_as_payer boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE "${s}".shops (
        id uuid PRIMARY KEY,
        company_id uuid NOT NULL REFERENCES "${s}".companies(id),
        name text NOT NULL,
        callback_url text,
        callback_secret text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE "${s}".api_keys (
        id uuid PRIMARY KEY,
        shop_id uuid NOT NULL REFERENCES "${s}".shops(id),
        key_hash text NOT NULL UNIQUE,
        key_prefix text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz,
        revoked_at timestamptz
      )`);
    await q.query(`CREATE INDEX api_keys_shop ON "${s}".api_keys (shop_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'gateway';
    await q.query(`DROP TABLE "${s}".api_keys`);
    await q.query(`DROP TABLE "${s}".shops`);
    await q.query(`DROP TABLE "${s}".companies`);
  }
}
