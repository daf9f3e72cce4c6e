import { MigrationInterface, QueryRunner } from 'typeorm';

export class OrderDetails1763800000000 implements MigrationInterface {
  name = 'OrderDetails1763800000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'orders';
    await q.query(`ALTER TABLE "${s}".orders
      ADD COLUMN instrument_type text CHECK (instrument_type IN ('card','wallet','bank_transfer','mobile_top_up')),
      ADD COLUMN payment_settings jsonb,
      ADD COLUMN recipient jsonb,
      ADD COLUMN is_crypto boolean NOT NULL DEFAULT false`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'orders';
    await q.query(
      `ALTER TABLE "${s}".orders DROP COLUMN instrument_type, DROP COLUMN payment_settings, DROP COLUMN recipient, DROP COLUMN is_crypto`,
    );
  }
}
