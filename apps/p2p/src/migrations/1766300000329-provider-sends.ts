import { MigrationInterface, QueryRunner } from 'typeorm';
import { transferSendsMigrationSql } from '@payments/provider-dispatch';

/** Each send's answer and duration on its dispatch row and in its operator view (decision 329). */
export class P2pProviderSends1766300000329 implements MigrationInterface {
  name = 'P2pProviderSends1766300000329';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'p2p';
    for (const sql of transferSendsMigrationSql(s, 'p2p_id').up) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'p2p';
    for (const sql of transferSendsMigrationSql(s, 'p2p_id').down) await q.query(sql);
  }
}
