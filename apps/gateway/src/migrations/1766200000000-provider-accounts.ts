import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A shop's accounts with providers (decision 341): per provider code, the account's public ids and
 * its secret sealed. A Click service and a Payme cashbox belong to one shop: their calls name them.
 */
export class ProviderAccounts1766200000000 implements MigrationInterface {
  name = 'ProviderAccounts1766200000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'gateway';
    await q.query(`ALTER TABLE "${s}".shops ADD COLUMN provider_accounts jsonb NOT NULL DEFAULT '{}'::jsonb`);
    await q.query(
      `CREATE UNIQUE INDEX shops_click_service_id ON "${s}".shops ((provider_accounts->'click'->>'serviceId'))`,
    );
    await q.query(
      `CREATE UNIQUE INDEX shops_payme_merchant_id ON "${s}".shops ((provider_accounts->'payme'->>'merchantId'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'gateway';
    await q.query(`DROP INDEX "${s}".shops_payme_merchant_id`);
    await q.query(`DROP INDEX "${s}".shops_click_service_id`);
    await q.query(`ALTER TABLE "${s}".shops DROP COLUMN provider_accounts`);
  }
}
