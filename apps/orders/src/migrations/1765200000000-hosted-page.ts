import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Hosted payment pages (issue 20): the link's token is stored as its SHA-256 only; the card typed
 * on the page as its vault token and masked number only (ARCHITECTURE.md section 10).
 */
export class HostedPage1765200000000 implements MigrationInterface {
  name = 'HostedPage1765200000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'orders';
    await q.query(`ALTER TABLE "${s}".orders
      ADD COLUMN link_hash text,
      ADD COLUMN link_expires_at timestamptz,
      ADD COLUMN link_used_at timestamptz,
      ADD COLUMN page_locale text,
      ADD COLUMN redirect_urls jsonb,
      ADD COLUMN card_token text,
      ADD COLUMN card_masked text,
      ADD COLUMN page_method text,
      ADD COLUMN instructions jsonb`);
    await q.query(`CREATE UNIQUE INDEX orders_link_hash ON "${s}".orders (link_hash) WHERE link_hash IS NOT NULL`);
    // The expiry sweep reads unpaid links by their expiry.
    await q.query(
      `CREATE INDEX orders_live_link_expiry ON "${s}".orders (link_expires_at) WHERE link_hash IS NOT NULL AND link_used_at IS NULL AND status = 'registered'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'orders';
    await q.query(`DROP INDEX "${s}".orders_live_link_expiry`);
    await q.query(`DROP INDEX "${s}".orders_link_hash`);
    await q.query(`ALTER TABLE "${s}".orders DROP COLUMN link_hash, DROP COLUMN link_expires_at, DROP COLUMN link_used_at,
      DROP COLUMN page_locale, DROP COLUMN redirect_urls, DROP COLUMN card_token, DROP COLUMN card_masked,
      DROP COLUMN page_method, DROP COLUMN instructions`);
  }
}
