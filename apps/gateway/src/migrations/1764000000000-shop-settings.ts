import { MigrationInterface, QueryRunner } from 'typeorm';
import { messagingTablesDdl } from '@payments/messaging';

export class ShopSettings1764000000000 implements MigrationInterface {
  name = 'ShopSettings1764000000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'gateway';
    for (const sql of messagingTablesDdl(s)) await q.query(sql);
    await q.query(`ALTER TABLE "${s}".shops
      ADD COLUMN amount_deviation_lower_percent numeric(7, 4) NOT NULL DEFAULT 0 CHECK (amount_deviation_lower_percent BETWEEN 0 AND 100),
      ADD COLUMN amount_deviation_upper_percent numeric(7, 4) NOT NULL DEFAULT 0 CHECK (amount_deviation_upper_percent BETWEEN 0 AND 1000),
      ADD COLUMN auto_finalize_need_action boolean NOT NULL DEFAULT false,
      ADD COLUMN processing_timeout_seconds int NOT NULL DEFAULT 604800 CHECK (processing_timeout_seconds > 0),
      ADD COLUMN processing_timeouts jsonb NOT NULL DEFAULT '{}'::jsonb,
      ADD COLUMN settings_version int NOT NULL DEFAULT 1`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'gateway';
    await q.query(`ALTER TABLE "${s}".shops DROP COLUMN amount_deviation_lower_percent, DROP COLUMN amount_deviation_upper_percent,
      DROP COLUMN auto_finalize_need_action, DROP COLUMN processing_timeout_seconds, DROP COLUMN processing_timeouts, DROP COLUMN settings_version`);
  }
}
