import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An admin's release of a parked credit (decision 344): each release keeps who released which
 * credit, why, and what it was parked with, and like the books is never changed. The credit's
 * queue row itself is un-parked in the same transaction.
 */
export class LedgerCreditReleases1765900000344 implements MigrationInterface {
  name = 'LedgerCreditReleases1765900000344';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    await q.query(`
      CREATE TABLE "${s}".credit_releases (
        id bigserial PRIMARY KEY,
        transaction_id uuid NOT NULL REFERENCES "${s}".transactions (id),
        shop_id uuid NOT NULL,
        was_parked text NOT NULL,
        reason text NOT NULL CHECK (length(btrim(reason)) > 0),
        operator_id text NOT NULL,
        operator_name text NOT NULL,
        released_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX credit_releases_transaction ON "${s}".credit_releases (transaction_id)`);
    await q.query(`CREATE TRIGGER credit_releases_append_only BEFORE UPDATE OR DELETE ON "${s}".credit_releases
                   FOR EACH ROW EXECUTE FUNCTION "${s}".append_only()`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    await q.query(`DROP TABLE "${s}".credit_releases`);
  }
}
