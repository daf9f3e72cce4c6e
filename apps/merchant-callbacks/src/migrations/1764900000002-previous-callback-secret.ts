import { MigrationInterface, QueryRunner } from 'typeorm';

/** The secret a rotation replaced, sealed, and until when callbacks are still signed with it too. */
export class PreviousCallbackSecret1764900000002 implements MigrationInterface {
  name = 'PreviousCallbackSecret1764900000002';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'merchant_callbacks';
    await q.query(
      `ALTER TABLE "${s}".shops ADD COLUMN previous_callback_secret text, ADD COLUMN previous_callback_secret_expires_at timestamptz`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'merchant_callbacks';
    await q.query(
      `ALTER TABLE "${s}".shops DROP COLUMN previous_callback_secret, DROP COLUMN previous_callback_secret_expires_at`,
    );
  }
}
