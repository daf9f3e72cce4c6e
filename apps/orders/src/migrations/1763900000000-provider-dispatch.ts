import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The queue of payment attempts to send to the provider. A row is written in the transaction that
 * creates the order and is worked off by the dispatcher (apps/orders/src/dispatch-attempt).
 */
export class ProviderDispatch1763900000000 implements MigrationInterface {
  name = 'ProviderDispatch1763900000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'orders';
    await q.query(`
      CREATE TABLE "${s}".provider_dispatches (
        payment_id text PRIMARY KEY,
        order_id uuid NOT NULL REFERENCES "${s}".orders(id),
        provider text NOT NULL,
        amount numeric(38, 18) NOT NULL CHECK (amount > 0),
        currency text NOT NULL,
        token_standard text,
        status text NOT NULL DEFAULT 'pending',
        sends int NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL,
        claim_token uuid,
        claimed_by text,
        provider_payment_id text,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT provider_dispatches_status CHECK (status IN ('pending','accepted','timed_out','refused','gave_up','skipped'))
      )`);
    await q.query(
      `CREATE INDEX provider_dispatches_due ON "${s}".provider_dispatches (next_attempt_at) WHERE status = 'pending'`,
    );
    await q.query(`CREATE INDEX provider_dispatches_order ON "${s}".provider_dispatches (order_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'orders';
    await q.query(`DROP TABLE "${s}".provider_dispatches`);
  }
}
