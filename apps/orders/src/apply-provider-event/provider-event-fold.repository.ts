import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { Outbox, OutboxItem } from '@payments/messaging';
import { preparedQuery } from '@payments/platform';
import { ident, join, raw, type Sql, sql } from '@payments/sql';
import { ORDERS_CONFIG, OrdersConfig } from '../config';
import { OrderEntity, PaymentAttemptEntity } from '../order.entity';
import { orderFromRow } from '../order.repository';

const iso = (d: Date) => d.toISOString();

/**
 * The provider-event fold's two statements (decision 245): the first records the batch in the
 * inbox and locks its orders, the second writes what the fold decided. The orders' other
 * statements are in order.repository.ts.
 */
@Injectable()
export class ProviderEventFoldRepository {
  constructor(@Inject(ORDERS_CONFIG) private readonly config: OrdersConfig) {}

  /**
   * A provider-event batch's first statement: its inbox ids (`inbox`, a CTE named `fresh`) and the
   * orders it names, locked in id order. Returns the event ids seen for the first time and the
   * locked orders. The orders of repeated events are locked too (a repeat is rare; deciding first
   * would take a round trip more). With each order, the payment ids of the attempts we dispatched
   * for it, newest first (decision 322: a callback about an older one is about a superseded attempt).
   */
  async lockForEvents(
    m: EntityManager,
    inbox: Sql,
    orderIds: string[],
  ): Promise<{ fresh: Set<string>; orders: Map<string, OrderEntity>; attempts: Map<string, string[]> }> {
    const schema = ident(this.config.schema);
    const statement = sql`WITH ${inbox},
            locked AS MATERIALIZED (SELECT * FROM ${schema}.orders WHERE id = ANY(${orderIds}::uuid[]) ORDER BY id FOR UPDATE)
       SELECT (SELECT array_agg(event_id::text) FROM fresh) AS "inbox.fresh",
              (SELECT array_agg(d.payment_id ORDER BY d.created_at DESC, d.payment_id DESC)
                 FROM ${schema}.provider_dispatches d WHERE d.order_id = l.id) AS "dispatch.payment_ids", l.*
         FROM (SELECT 1) AS one LEFT JOIN locked AS l ON true`;
    const rows = await preparedQuery<Record<string, unknown>>(m, statement.text, statement.values);
    const fresh = new Set((rows[0]?.['inbox.fresh'] as string[] | null) ?? []);
    const orders = new Map<string, OrderEntity>();
    const attempts = new Map<string, string[]>();
    for (const r of rows) {
      if (!r.id) continue;
      orders.set(r.id as string, orderFromRow(m, r));
      attempts.set(r.id as string, (r['dispatch.payment_ids'] as string[] | null) ?? []);
    }
    return { fresh, orders, attempts };
  }

  /**
   * A provider-event batch's writes in one statement: attempts seen first (inserted unless they
   * exist), attempts a transition changed (inserted, or updated when the report differs from the
   * row: a repeat leaves it as it is), the transitioned orders and their outbox rows. The caller
   * holds the orders' locks. Nothing to write: no statement.
   */
  async writeFold(
    m: EntityManager,
    outbox: Outbox,
    write: {
      seen: readonly PaymentAttemptEntity[];
      changed: readonly PaymentAttemptEntity[];
      orders: readonly OrderEntity[];
      events: readonly OutboxItem[];
    },
  ): Promise<void> {
    const schema = ident(this.config.schema);
    const ctes: Sql[] = [];
    const attempts = (name: string, list: readonly PaymentAttemptEntity[], onConflict: Sql) => {
      const c = attemptColumns(list);
      ctes.push(
        sql`${raw(name)} AS (INSERT INTO ${schema}.payment_attempts
           (order_id, payment_id, provider, status, amount, currency, status_code, created_at, updated_at)
         SELECT * FROM unnest(${c.orderId}::uuid[], ${c.paymentId}::text[], ${c.provider}::text[], ${c.status}::text[],
                              ${c.amount}::numeric[], ${c.currency}::text[], ${c.statusCode}::text[],
                              ${c.createdAt}::timestamptz[], ${c.updatedAt}::timestamptz[])
         ON CONFLICT (order_id, payment_id) ${onConflict})`,
      );
    };
    if (write.seen.length > 0) attempts('seen', write.seen, sql`DO NOTHING`);
    if (write.changed.length > 0)
      attempts(
        'changed',
        write.changed,
        // A report that says what the attempt already says changes nothing, not even updated_at
        // (decision 350): the reconciliation reads updated_at as when the attempt was reported
        // paid, and a provider's repeated success would otherwise reopen a finding an operator
        // settled (decision 343's replaced_attempt_paid).
        sql`DO UPDATE SET status = EXCLUDED.status, amount = EXCLUDED.amount, currency = EXCLUDED.currency,
           status_code = EXCLUDED.status_code, updated_at = EXCLUDED.updated_at
         WHERE (payment_attempts.status, payment_attempts.amount, payment_attempts.currency, payment_attempts.status_code)
               IS DISTINCT FROM (EXCLUDED.status, EXCLUDED.amount, EXCLUDED.currency, EXCLUDED.status_code)`,
      );
    if (write.orders.length > 0) {
      const c = transitionColumns(write.orders);
      ctes.push(
        sql`transitioned AS (UPDATE ${schema}.orders AS o SET status = v.status, status_code = v.status_code,
           need_action_reason = v.need_action_reason, need_action = v.need_action, reported_amount = v.reported_amount,
           amount = v.amount, sequence = v.sequence, updated_at = v.updated_at
         FROM unnest(${c.id}::uuid[], ${c.status}::text[], ${c.statusCode}::text[], ${c.needActionReason}::text[],
                     ${c.needAction}::jsonb[], ${c.reportedAmount}::numeric[], ${c.amount}::numeric[], ${c.sequence}::int[],
                     ${c.updatedAt}::timestamptz[])
           AS v(id, status, status_code, need_action_reason, need_action, reported_amount, amount, sequence, updated_at)
         WHERE o.id = v.id)`,
      );
    }
    if (write.events.length > 0) {
      // The locks are held: the rows are written unconditionally (a guard of one row).
      ctes.push(sql`one AS (SELECT 1)`, outbox.cte('events', 'one', write.events));
    }
    if (ctes.length === 0) return;
    const statement = sql`WITH ${join(ctes, ',\n')} SELECT 1`;
    await preparedQuery(m, statement.text, statement.values);
    if (write.events.length > 0) outbox.wake(m);
  }
}

/** Attempts as the arrays of an `unnest`, one per column. */
function attemptColumns(attempts: readonly PaymentAttemptEntity[]) {
  return {
    orderId: attempts.map((a) => a.orderId),
    paymentId: attempts.map((a) => a.paymentId),
    provider: attempts.map((a) => a.provider),
    status: attempts.map((a) => a.status),
    amount: attempts.map((a) => a.amount),
    currency: attempts.map((a) => a.currency),
    statusCode: attempts.map((a) => a.statusCode ?? null),
    createdAt: attempts.map((a) => iso(a.createdAt)),
    updatedAt: attempts.map((a) => iso(a.updatedAt)),
  };
}

/** Transitioned orders as the arrays of an `unnest`, one per column. */
function transitionColumns(orders: readonly OrderEntity[]) {
  return {
    id: orders.map((o) => o.id),
    status: orders.map((o) => o.status),
    statusCode: orders.map((o) => o.statusCode),
    needActionReason: orders.map((o) => o.needActionReason),
    needAction: orders.map((o) =>
      o.needAction === null || o.needAction === undefined ? null : JSON.stringify(o.needAction),
    ),
    reportedAmount: orders.map((o) => o.reportedAmount),
    amount: orders.map((o) => o.amount),
    sequence: orders.map((o) => o.sequence),
    updatedAt: orders.map((o) => iso(o.updatedAt)),
  };
}
