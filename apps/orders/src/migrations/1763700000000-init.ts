import { MigrationInterface, QueryRunner } from 'typeorm';
import { messagingTablesDdl } from '@payments/messaging';

export class Init1763700000000 implements MigrationInterface {
  name = 'Init1763700000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'orders';
    for (const sql of messagingTablesDdl(s)) await q.query(sql);
    await q.query(`
      CREATE TABLE "${s}".orders (
        id uuid PRIMARY KEY,
        shop_id uuid NOT NULL,
        merchant_order_id text NOT NULL,
        status text NOT NULL,
        status_code text,
        amount numeric(38, 18) NOT NULL CHECK (amount > 0),
        original_amount numeric(38, 18) NOT NULL CHECK (original_amount > 0),
        reported_amount numeric(38, 18),
        currency text NOT NULL,
        token_standard text,
        need_action_reason text,
        description text,
        payer jsonb,
        sequence int NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT orders_merchant_order_id UNIQUE (shop_id, merchant_order_id),
        CONSTRAINT orders_status CHECK (status IN ('registered','in_progress','need_action','completed','partially_refunded','refunded','cancelled','failed'))
      )`);
    await q.query(`
      CREATE TABLE "${s}".payment_attempts (
        order_id uuid NOT NULL REFERENCES "${s}".orders(id),
        payment_id text NOT NULL,
        provider text NOT NULL,
        status text NOT NULL,
        amount numeric(38, 18),
        currency text,
        status_code text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (order_id, payment_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'orders';
    await q.query(`DROP TABLE "${s}".payment_attempts`);
    await q.query(`DROP TABLE "${s}".orders`);
  }
}
