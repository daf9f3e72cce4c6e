import { MigrationInterface, QueryRunner } from 'typeorm';
import { transferSendsMigrationSql } from '@payments/provider-dispatch';

/** Each send's answer and duration on its dispatch row and in its operator view (decision 329). */
export class PayoutProviderSends1766300000329 implements MigrationInterface {
  name = 'PayoutProviderSends1766300000329';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'payouts';
    for (const sql of transferSendsMigrationSql(s, 'payout_id').up) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'payouts';
    for (const sql of transferSendsMigrationSql(s, 'payout_id').down) await q.query(sql);
  }
}
