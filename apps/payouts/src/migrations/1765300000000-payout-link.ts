import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Payout via payment page (issue 20): a payout may wait for its recipient's details on a link.
 * Only the link token's SHA-256 is stored (docs/decisions.md 125, 134).
 */
export class PayoutLink1765300000000 implements MigrationInterface {
  name = 'PayoutLink1765300000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'payouts';
    await q.query(`ALTER TABLE "${s}".payouts
      ADD COLUMN link_hash text,
      ADD COLUMN link_expires_at timestamptz,
      ADD COLUMN link_used_at timestamptz,
      ADD COLUMN page_locale text,
      ADD COLUMN redirect_urls jsonb`);
    await q.query(`CREATE UNIQUE INDEX payouts_link_hash ON "${s}".payouts (link_hash) WHERE link_hash IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'payouts';
    await q.query(`DROP INDEX "${s}".payouts_link_hash`);
    await q.query(`ALTER TABLE "${s}".payouts DROP COLUMN link_hash, DROP COLUMN link_expires_at,
      DROP COLUMN link_used_at, DROP COLUMN page_locale, DROP COLUMN redirect_urls`);
  }
}
