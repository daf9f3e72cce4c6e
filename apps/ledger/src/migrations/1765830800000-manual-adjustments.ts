import { MigrationInterface, QueryRunner } from 'typeorm';
import { changeCheckValues } from './check-values';

/**
 * Operators' manual adjustments (decision 308): a `manual_adjustment` transaction moves a shop's
 * available balance against the service's `adjustments` account of the currency; each adjustment
 * keeps who posted it and why, once per shop and idempotency key, and like the books is never
 * changed.
 */
export class LedgerManualAdjustments1765830800000 implements MigrationInterface {
  name = 'LedgerManualAdjustments1765830800000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    await changeCheckValues(q, s, 'accounts', 'accounts_owner', 'owner', { add: ['adjustments'] });
    await changeCheckValues(q, s, 'transactions', 'transactions_kind', 'kind', { add: ['manual_adjustment'] });
    await q.query(`
      CREATE TABLE "${s}".adjustments (
        id uuid PRIMARY KEY,
        shop_id uuid NOT NULL,
        idempotency_key text NOT NULL,
        currency text NOT NULL,
        amount numeric(38, 18) NOT NULL CHECK (amount <> 0),
        reason text NOT NULL CHECK (length(btrim(reason)) > 0),
        operator_id text NOT NULL,
        operator_name text NOT NULL,
        transaction_id uuid NOT NULL REFERENCES "${s}".transactions (id),
        available_after numeric(38, 18) NOT NULL CHECK (available_after >= 0),
        created_at timestamptz NOT NULL,
        CONSTRAINT adjustments_once UNIQUE (shop_id, idempotency_key)
      )`);
    await q.query(`CREATE INDEX adjustments_transaction ON "${s}".adjustments (transaction_id)`);
    await q.query(`CREATE TRIGGER adjustments_append_only BEFORE UPDATE OR DELETE ON "${s}".adjustments
                   FOR EACH ROW EXECUTE FUNCTION "${s}".append_only()`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    await q.query(`DROP TABLE "${s}".adjustments`);
    await changeCheckValues(q, s, 'transactions', 'transactions_kind', 'kind', { remove: ['manual_adjustment'] });
    await changeCheckValues(q, s, 'accounts', 'accounts_owner', 'owner', { remove: ['adjustments'] });
  }
}
