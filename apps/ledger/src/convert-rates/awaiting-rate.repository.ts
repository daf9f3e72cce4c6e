import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AccountRef, accountKey } from '@payments/ledger-domain';
import { Amount, amountOf } from '@payments/money';
import { LedgerConfig } from '../config';
import { LEDGER_CONFIG } from '../tokens';

/** Why a credit whose suspense a refund's hold took fully is parked (until the hold finishes). */
export const REFUND_HOLD = 'refund hold';

/** A credit held in suspense until its pair has a rate (decision 304): one queue row per credit. */
export interface AwaitingCredit {
  /** The `order_completed` transaction that put the net in suspense. */
  transactionId: string;
  shopId: string;
  orderId: string;
  orderCurrency: string;
  balanceCurrency: string;
  /** The net put in suspense, in the order currency. */
  amount: Amount;
  /** When the order completed. */
  createdAt: Date;
  provider: string | null;
}

/** The queue of credits waiting for a rate: the marker that a credit still waits, taken with SKIP LOCKED. */
@Injectable()
export class AwaitingRateRepository {
  private readonly s: string;

  constructor(@Inject(LEDGER_CONFIG) config: Pick<LedgerConfig, 'schema'>) {
    this.s = config.schema;
  }

  async enqueue(m: EntityManager, c: Omit<AwaitingCredit, 'provider'>): Promise<void> {
    await m.query(
      `INSERT INTO "${this.s}".awaiting_rates (transaction_id, shop_id, order_id, order_currency, balance_currency, amount, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
      [c.transactionId, c.shopId, c.orderId, c.orderCurrency, c.balanceCurrency, c.amount.toFixed(), c.createdAt],
    );
  }

  /**
   * Locks the order's credit while it waits (its queue row), before a refund decides whether to take
   * it from suspense: a conversion in progress is waited for (and then read as done), and the
   * sweep skips a credit a refund is deciding on. Both take the row before the accounts.
   */
  async lockWaiting(m: EntityManager, orderId: string): Promise<void> {
    await m.query(`SELECT 1 FROM "${this.s}".awaiting_rates WHERE order_id = $1 FOR UPDATE`, [orderId]);
  }

  /**
   * Queues a converted credit again when money came back to its suspense afterwards (a refund's
   * hold from suspense voided after the conversion), so that the next sweep converts that too:
   * the voided amount, kept with the credit's completion time (the rate in force then still
   * applies). A credit parked for the refund's hold is un-parked instead (see `unpark`).
   */
  async enqueueAgain(m: EntityManager, orderId: string, voided: Amount): Promise<void> {
    await m.query(
      `INSERT INTO "${this.s}".awaiting_rates (transaction_id, shop_id, order_id, order_currency, balance_currency, amount, created_at)
       SELECT c.id, c.shop_id, c.source_id, c.operation_currency, v.balance_currency, $2, c.created_at
         FROM "${this.s}".transactions c
         JOIN LATERAL (SELECT balance_currency FROM "${this.s}".transactions v
                        WHERE v.source_id = c.source_id AND v.kind = 'suspense_converted' LIMIT 1) v ON true
        WHERE c.source_id = $1 AND c.kind = 'order_completed' AND c.status = 'awaiting_rate'
       ON CONFLICT DO NOTHING`,
      [orderId, voided.toFixed()],
    );
  }

  /**
   * Parks a credit taken off the queue: puts its row back with the reason the sweep leaves it
   * alone (`REFUND_HOLD` while a refund's hold took all that was left of it, or the error its
   * conversion failed with), so that the money in suspense stays seen.
   */
  async park(m: EntityManager, c: AwaitingCredit, reason: string, now: Date): Promise<void> {
    await m.query(
      `INSERT INTO "${this.s}".awaiting_rates
         (transaction_id, shop_id, order_id, order_currency, balance_currency, amount, created_at, parked, parked_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (transaction_id) DO UPDATE SET parked = excluded.parked, parked_at = excluded.parked_at`,
      [
        c.transactionId,
        c.shopId,
        c.orderId,
        c.orderCurrency,
        c.balanceCurrency,
        c.amount.toFixed(),
        c.createdAt,
        reason.slice(0, 500),
        now,
      ],
    );
  }

  /** Un-parks the order's credit parked for a refund's hold, once the hold finished: the next sweep decides again. */
  async unpark(m: EntityManager, orderId: string): Promise<void> {
    await m.query(
      `UPDATE "${this.s}".awaiting_rates SET parked = NULL, parked_at = NULL WHERE order_id = $1 AND parked = $2`,
      [orderId, REFUND_HOLD],
    );
  }

  /** Whether a refund's hold from the order's suspense is still open (it may yet be voided back). */
  async refundHeld(m: EntityManager, orderId: string): Promise<boolean> {
    const rows: unknown[] = await m.query(
      `SELECT 1 FROM "${this.s}".refund_holds WHERE order_id = $1 AND source = 'suspense' AND status = 'held' LIMIT 1`,
      [orderId],
    );
    return rows.length > 0;
  }

  /**
   * Takes up to `limit` waiting credits (not parked) whose pair has a rate in force (at the credit's time or
   * now) off the queue, skipping those another instance holds (FOR UPDATE SKIP LOCKED): several
   * sweeps share the work, none converts a credit twice, a crash rolls the take back.
   */
  async takeConvertible(m: EntityManager, now: Date, limit: number): Promise<AwaitingCredit[]> {
    const inForce = (at: string) => `(r.valid_from <= ${at} AND (r.valid_to IS NULL OR r.valid_to > ${at}))`;
    const rows: {
      transaction_id: string;
      shop_id: string;
      order_id: string;
      order_currency: string;
      balance_currency: string;
      amount: string;
      created_at: Date;
    }[] = await m.query(
      `WITH taken AS (DELETE FROM "${this.s}".awaiting_rates WHERE transaction_id IN (
         SELECT a.transaction_id FROM "${this.s}".awaiting_rates a
          WHERE a.balance_currency IS NOT NULL AND a.parked IS NULL AND EXISTS (
            SELECT 1 FROM "${this.s}".rates r WHERE r.base = a.order_currency AND r.quote = a.balance_currency
               AND (${inForce('a.created_at')} OR ${inForce('$1')}))
          ORDER BY a.created_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING transaction_id, shop_id, order_id, order_currency, balance_currency, amount::text, created_at)
       SELECT * FROM taken`,
      [now, limit],
    );
    const providers: { id: string; provider: string | null }[] = rows.length
      ? await m.query(`SELECT id, provider FROM "${this.s}".transactions WHERE id = ANY($1::uuid[])`, [
          rows.map((r) => r.transaction_id),
        ])
      : [];
    const provider = new Map(providers.map((p) => [p.id, p.provider]));
    return rows.map((r) => ({
      transactionId: r.transaction_id,
      shopId: r.shop_id,
      orderId: r.order_id,
      orderCurrency: r.order_currency,
      balanceCurrency: r.balance_currency,
      amount: amountOf(r.amount),
      createdAt: r.created_at,
      provider: provider.get(r.transaction_id) ?? null,
    }));
  }

  /**
   * What of an order's credit is still in the shop's suspense: the sum of the postings of the
   * order's transactions on that account (the credit, less the refunds held or booked from it,
   * plus those voided back to it, less what was converted).
   */
  async suspenseLeft(m: EntityManager, orderId: string, suspense: AccountRef): Promise<Amount> {
    const [r]: { remaining: string }[] = await m.query(
      `SELECT coalesce(sum(p.amount), 0)::text AS remaining FROM "${this.s}".postings p
         JOIN "${this.s}".transactions t ON t.id = p.transaction_id
        WHERE t.source_id = $1 AND p.account_key = $2`,
      [orderId, accountKey(suspense)],
    );
    return amountOf(r.remaining);
  }

  /** How many times the credit was converted already (a second conversion is of money that came back). */
  async conversions(m: EntityManager, orderId: string): Promise<number> {
    const [r]: { n: number }[] = await m.query(
      `SELECT count(*)::int AS n FROM "${this.s}".transactions WHERE source_id = $1 AND kind = 'suspense_converted'`,
      [orderId],
    );
    return r.n;
  }
}
