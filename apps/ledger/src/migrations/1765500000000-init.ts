import { MigrationInterface, QueryRunner } from 'typeorm';
import { messagingTablesDdl } from '@payments/messaging';

/**
 * The books (ARCHITECTURE.md section 11, docs/ledger.md). Postings and transactions are
 * append-only: a trigger refuses UPDATE and DELETE, and a statement trigger refuses postings of a
 * transaction that do not sum to zero per currency. A shop's pending, available, reserved and
 * suspense balances cannot go below zero: the handlers decide on locked rows, and a CHECK is the
 * last guard.
 */
export class LedgerInit1765500000000 implements MigrationInterface {
  name = 'LedgerInit1765500000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    for (const sql of messagingTablesDdl(s)) await q.query(sql);
    await q.query(`
      CREATE TABLE "${s}".accounts (
        key text PRIMARY KEY,
        owner text NOT NULL,
        shop_id uuid,
        kind text,
        provider text,
        currency text NOT NULL,
        balance numeric(38, 18) NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT accounts_owner CHECK (owner IN ('shop', 'clearing', 'fee_revenue', 'fx')),
        CONSTRAINT accounts_shop_kind CHECK ((owner = 'shop') = (shop_id IS NOT NULL AND kind IS NOT NULL)),
        CONSTRAINT accounts_kind CHECK (kind IS NULL OR kind IN ('pending', 'available', 'reserved', 'suspense', 'receivable')),
        CONSTRAINT accounts_never_negative CHECK (kind IS NULL OR kind = 'receivable' OR balance >= 0)
      )`);
    await q.query(`CREATE INDEX accounts_shop ON "${s}".accounts (shop_id, currency) WHERE shop_id IS NOT NULL`);
    await q.query(`
      CREATE TABLE "${s}".transactions (
        id uuid PRIMARY KEY,
        idempotency_key text NOT NULL UNIQUE,
        kind text NOT NULL,
        status text NOT NULL DEFAULT 'posted',
        shop_id uuid NOT NULL,
        source_type text NOT NULL,
        source_id text NOT NULL,
        provider text,
        operation_currency text NOT NULL,
        gross numeric(38, 18) NOT NULL,
        fee numeric(38, 18) NOT NULL DEFAULT 0,
        net numeric(38, 18) NOT NULL,
        balance_currency text NOT NULL,
        balance_amount numeric(38, 18) NOT NULL,
        rate numeric(38, 18),
        rate_source text,
        rate_valid_from timestamptz,
        created_at timestamptz NOT NULL,
        available_on timestamptz,
        CONSTRAINT transactions_kind CHECK (kind IN ('order_completed', 'order_refunded', 'settlement', 'payout_reserved', 'payout_posted', 'payout_voided')),
        CONSTRAINT transactions_status CHECK (status IN ('posted', 'awaiting_rate'))
      )`);
    // Every completed order has exactly one credit, whatever event told of it.
    await q.query(
      `CREATE UNIQUE INDEX transactions_one_credit ON "${s}".transactions (source_id) WHERE kind = 'order_completed'`,
    );
    await q.query(`CREATE INDEX transactions_shop ON "${s}".transactions (shop_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX transactions_source ON "${s}".transactions (source_id, kind)`);
    await q.query(`
      CREATE TABLE "${s}".postings (
        id bigserial PRIMARY KEY,
        transaction_id uuid NOT NULL REFERENCES "${s}".transactions (id),
        account_key text NOT NULL REFERENCES "${s}".accounts (key),
        currency text NOT NULL,
        amount numeric(38, 18) NOT NULL CHECK (amount <> 0),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX postings_transaction ON "${s}".postings (transaction_id)`);
    await q.query(`CREATE INDEX postings_account ON "${s}".postings (account_key)`);
    await q.query(`
      CREATE FUNCTION "${s}".append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'ledger %: rows are append-only, a correction is a new transaction', TG_TABLE_NAME;
      END $$`);
    for (const table of ['postings', 'transactions'])
      await q.query(`CREATE TRIGGER ${table}_append_only BEFORE UPDATE OR DELETE ON "${s}".${table}
                     FOR EACH ROW EXECUTE FUNCTION "${s}".append_only()`);
    await q.query(`
      CREATE FUNCTION "${s}".postings_balance() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE bad record;
      BEGIN
        SELECT transaction_id, currency, sum(amount) AS total INTO bad FROM new_rows
          GROUP BY transaction_id, currency HAVING sum(amount) <> 0 LIMIT 1;
        IF FOUND THEN
          RAISE EXCEPTION 'ledger transaction %: postings in % sum to %, not zero', bad.transaction_id, bad.currency, bad.total;
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER postings_sum_to_zero AFTER INSERT ON "${s}".postings
                   REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "${s}".postings_balance()`);
    await q.query(`
      CREATE TABLE "${s}".pending_settlements (
        transaction_id uuid PRIMARY KEY REFERENCES "${s}".transactions (id),
        shop_id uuid NOT NULL,
        currency text NOT NULL,
        amount numeric(38, 18) NOT NULL,
        available_on timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX pending_settlements_due ON "${s}".pending_settlements (available_on)`);
    await q.query(`
      CREATE TABLE "${s}".holds (
        payout_id uuid PRIMARY KEY,
        shop_id uuid NOT NULL,
        provider text NOT NULL,
        currency text NOT NULL,
        amount numeric(38, 18) NOT NULL,
        fee numeric(38, 18) NOT NULL,
        status text NOT NULL DEFAULT 'held',
        created_at timestamptz NOT NULL,
        finished_at timestamptz,
        CONSTRAINT holds_status CHECK (status IN ('held', 'posted', 'voided'))
      )`);
    await q.query(`
      CREATE TABLE "${s}".fee_schedules (
        shop_id uuid NOT NULL,
        method text NOT NULL,
        currency text NOT NULL,
        percent numeric(9, 6) NOT NULL DEFAULT 0 CHECK (percent >= 0 AND percent <= 100),
        fixed numeric(38, 18) NOT NULL DEFAULT 0 CHECK (fixed >= 0),
        minimum numeric(38, 18) NOT NULL DEFAULT 0 CHECK (minimum >= 0),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (shop_id, method, currency)
      )`);
    await q.query(`
      CREATE TABLE "${s}".rates (
        id bigserial PRIMARY KEY,
        base text NOT NULL,
        quote text NOT NULL,
        rate numeric(38, 18) NOT NULL CHECK (rate > 0),
        source text NOT NULL,
        valid_from timestamptz NOT NULL,
        valid_to timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT rates_validity CHECK (valid_to IS NULL OR valid_to > valid_from)
      )`);
    await q.query(`CREATE INDEX rates_pair ON "${s}".rates (base, quote, valid_from DESC)`);
    await q.query(`
      CREATE TABLE "${s}".shop_settings (
        shop_id uuid PRIMARY KEY,
        settlement_delay_seconds integer NOT NULL DEFAULT 86400 CHECK (settlement_delay_seconds >= 0),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    for (const t of [
      'shop_settings',
      'rates',
      'fee_schedules',
      'holds',
      'pending_settlements',
      'postings',
      'transactions',
      'accounts',
    ])
      await q.query(`DROP TABLE "${s}".${t}`);
    await q.query(`DROP FUNCTION "${s}".postings_balance()`);
    await q.query(`DROP FUNCTION "${s}".append_only()`);
  }
}
