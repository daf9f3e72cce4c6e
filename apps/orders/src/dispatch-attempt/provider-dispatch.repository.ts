import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import type { OrderStatus } from '@payments/contracts';
import { ORDERS_CONFIG, OrdersConfig } from '../config';
import type { OrderEntity } from '../order.entity';
import type { DispatchStatus } from './attempt-outcome';
import { PAYMENT_PROVIDER, PaymentProvider } from './payment-provider';

/** The channel a committed dispatch row is announced on, so a dispatcher wakes at once. */
export function dispatchChannel(schema: string): string {
  return `${schema}_provider_dispatch`;
}

/** A dispatch row as a dispatcher claimed it, with its order's status at claim time. */
export interface ClaimedDispatch {
  paymentId: string;
  orderId: string;
  provider: string;
  /** numeric(38, 18) as PostgreSQL prints it. */
  amount: string;
  currency: string;
  tokenStandard: string | null;
  /** Sends so far, this one included. */
  sends: number;
  orderStatus: OrderStatus;
}

interface ClaimedRow {
  payment_id: string;
  order_id: string;
  provider: string;
  amount: string;
  currency: string;
  token_standard: string | null;
  sends: number;
  order_status: OrderStatus;
}

/**
 * The queue of payment attempts to send. Rows are claimed with a lease (`next_attempt_at` moved
 * past the provider call) and a claim token, so the call itself runs outside any transaction and a
 * crashed dispatcher's rows come back once the lease has run out; the provider's idempotency by
 * paymentId makes that resend safe.
 */
@Injectable()
export class ProviderDispatchRepository {
  private readonly table: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
    @Inject(PAYMENT_PROVIDER) private readonly provider: PaymentProvider,
  ) {
    this.table = `"${config.schema}".provider_dispatches`;
  }

  /**
   * Queues the first payment attempt of a new order, in the transaction that creates it; the
   * NOTIFY is delivered at commit. Returns our payment id of the attempt.
   */
  async enqueue(m: EntityManager, order: OrderEntity, now: Date): Promise<string> {
    const paymentId = `pay_${randomUUID()}`;
    await m.query(
      `INSERT INTO ${this.table} (payment_id, order_id, provider, amount, currency, token_standard, status, sends, next_attempt_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'pending', 0, $7, $7, $7)`,
      [paymentId, order.id, this.provider.code, order.amount, order.currency, order.tokenStandard, now],
    );
    await m.query(`SELECT pg_notify($1, '')`, [dispatchChannel(this.config.schema)]);
    return paymentId;
  }

  /**
   * Claims up to `limit` due rows that no other dispatcher holds (FOR UPDATE SKIP LOCKED): one
   * statement, so the claim commits before any provider call starts.
   */
  async claimDue(now: Date, leaseUntil: Date, limit: number, claimToken: string, claimedBy: string): Promise<ClaimedDispatch[]> {
    // The outer statement is a SELECT: TypeORM answers an UPDATE ... RETURNING as [rows, count].
    const rows: ClaimedRow[] = await this.dataSource.query(
      `WITH due AS (
         SELECT payment_id FROM ${this.table}
          WHERE status = 'pending' AND next_attempt_at <= $1
          ORDER BY next_attempt_at, payment_id
          LIMIT $2
          FOR UPDATE SKIP LOCKED
       ), claimed AS (
         UPDATE ${this.table} d
            SET sends = d.sends + 1, next_attempt_at = $3, claim_token = $4, claimed_by = $5, updated_at = $1
           FROM due
          WHERE d.payment_id = due.payment_id
         RETURNING d.payment_id, d.order_id, d.provider, d.amount, d.currency, d.token_standard, d.sends
       )
       SELECT c.*, o.status AS order_status
         FROM claimed c JOIN "${this.config.schema}".orders o ON o.id = c.order_id
        ORDER BY c.payment_id`,
      [now, limit, leaseUntil, claimToken, claimedBy],
    );
    return rows.map((r) => ({
      paymentId: r.payment_id,
      orderId: r.order_id,
      provider: r.provider,
      amount: r.amount,
      currency: r.currency,
      tokenStandard: r.token_standard,
      sends: Number(r.sends),
      orderStatus: r.order_status,
    }));
  }

  /**
   * Locks a row for recording the outcome of a send, if it is still this claim's: when the lease
   * ran out and another dispatcher re-claimed the row, that one records the outcome instead.
   */
  async lockClaimed(m: EntityManager, paymentId: string, claimToken: string): Promise<{ sends: number } | null> {
    const rows: { sends: number }[] = await m.query(
      `SELECT sends FROM ${this.table} WHERE payment_id = $1 AND status = 'pending' AND claim_token = $2 FOR UPDATE`,
      [paymentId, claimToken],
    );
    return rows.length === 1 ? { sends: Number(rows[0].sends) } : null;
  }

  async finish(m: EntityManager, paymentId: string, status: Exclude<DispatchStatus, 'pending'>, now: Date, details: { providerPaymentId?: string; error?: string } = {}): Promise<void> {
    await m.query(
      `UPDATE ${this.table}
          SET status = $2, claim_token = NULL, provider_payment_id = COALESCE($3, provider_payment_id), last_error = COALESCE($4, last_error), updated_at = $5
        WHERE payment_id = $1`,
      [paymentId, status, details.providerPaymentId ?? null, details.error ?? null, now],
    );
  }

  async reschedule(m: EntityManager, paymentId: string, at: Date, error: string, now: Date): Promise<void> {
    await m.query(
      `UPDATE ${this.table} SET next_attempt_at = $2, claim_token = NULL, last_error = $3, updated_at = $4 WHERE payment_id = $1`,
      [paymentId, at, error, now],
    );
  }

  /** When the next pending row falls due (claimed rows count at the end of their lease). */
  async nextDueAt(): Promise<Date | null> {
    const rows: { at: Date | null }[] = await this.dataSource.query(`SELECT min(next_attempt_at) AS at FROM ${this.table} WHERE status = 'pending'`);
    return rows[0]?.at ?? null;
  }
}
