import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Whether any send of a payment attempt may have reached its provider (decision 343): a 500, 502,
 * 504 or 408 the dispatcher sent again. Failover looks at every send of the order, not only the
 * last one. A constant default: no table rewrite.
 */
export class DispatchMayHaveReached1766300000343 implements MigrationInterface {
  name = 'DispatchMayHaveReached1766300000343';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'orders';
    await q.query(
      `ALTER TABLE "${s}".provider_dispatches ADD COLUMN IF NOT EXISTS may_have_reached boolean NOT NULL DEFAULT false`,
    );
    await q.query(
      `COMMENT ON COLUMN "${s}".provider_dispatches.may_have_reached IS 'A send of this attempt got an answer that does not prove the provider took nothing (500, 502, 504, 408): never failed over (decision 343)'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'orders';
    await q.query(`ALTER TABLE "${s}".provider_dispatches DROP COLUMN may_have_reached`);
  }
}
