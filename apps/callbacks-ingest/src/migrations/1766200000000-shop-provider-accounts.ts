import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * This service's copy of each shop's Click and Payme accounts, fed by `shops.settings` (decision
 * 341): the accounts as published, secrets sealed. A call names the Click service or the Payme
 * cashbox, not the shop: each is looked up by an index.
 */
export class ShopProviderAccounts1766200000000 implements MigrationInterface {
  name = 'ShopProviderAccounts1766200000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'callbacks_ingest';
    await q.query(`
      CREATE TABLE "${s}".shop_provider_accounts (
        shop_id uuid PRIMARY KEY,
        version int NOT NULL,
        accounts jsonb NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX shop_provider_accounts_click ON "${s}".shop_provider_accounts ((accounts->'click'->>'serviceId'))`,
    );
    await q.query(
      `CREATE INDEX shop_provider_accounts_payme ON "${s}".shop_provider_accounts ((accounts->'payme'->>'merchantId'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'callbacks_ingest';
    await q.query(`DROP TABLE "${s}".shop_provider_accounts`);
  }
}
