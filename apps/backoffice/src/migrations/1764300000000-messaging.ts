import { messagingTablesDdl } from '@payments/messaging';
import { MigrationInterface, QueryRunner } from 'typeorm';

/** The backoffice's outbox (dead letters are redriven through it) and inbox, in its own schema. */
export class Messaging1764300000000 implements MigrationInterface {
  name = 'Messaging1764300000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'backoffice';
    for (const sql of messagingTablesDdl(s)) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'backoffice';
    await q.query(`DROP TABLE "${s}".inbox`);
    await q.query(`DROP TABLE "${s}".outbox`);
  }
}
