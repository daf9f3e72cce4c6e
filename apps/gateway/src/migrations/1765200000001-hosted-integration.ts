import { MigrationInterface, QueryRunner } from 'typeorm';

/** Hosted pages (issue 20): the shop's default integration and the domains its payers may be sent back to. */
export class HostedIntegration1765200000001 implements MigrationInterface {
  name = 'HostedIntegration1765200000001';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'gateway';
    await q.query(`ALTER TABLE "${s}".shops
      ADD COLUMN default_integration text NOT NULL DEFAULT 'host_to_host',
      ADD COLUMN redirect_domains jsonb NOT NULL DEFAULT '[]'::jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'gateway';
    await q.query(`ALTER TABLE "${s}".shops DROP COLUMN default_integration, DROP COLUMN redirect_domains`);
  }
}
