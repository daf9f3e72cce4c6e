import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { OperatorIdentity } from '@payments/contracts';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { type OutboxItem, outboxCte } from '@payments/messaging';
import { preparedQuery } from '@payments/platform';
import { ident, join, type Sql, sql } from '@payments/sql';
import { ORDERS_CONFIG, OrdersConfig } from './config';
import { OrderEntity, PaymentAttemptEntity } from './order.entity';

export interface RefundRow {
  refundId: string;
  amount: string;
  currency: string;
  createdAt: Date;
}

/**
 * Writes what a status transition changes on a locked, known order, without save()'s re-read. A
 * function rather than a method: the one transition writer (orders-outbox `applyTransition`) is one.
 */
export async function writeTransitionedOrder(m: EntityManager, order: OrderEntity): Promise<void> {
  // The statement TypeORM's update() sent, written once: it runs for every transition.
  const update = transitionUpdate(m, order);
  await m.query(update.text, update.values);
}

/** The UPDATE of a transitioned order. */
function transitionUpdate(m: EntityManager, order: OrderEntity): Sql {
  const needAction =
    order.needAction === null || order.needAction === undefined ? null : JSON.stringify(order.needAction);
  return sql`UPDATE ${tableOf(m, OrderEntity)} SET status = ${order.status}, status_code = ${order.statusCode},
       need_action_reason = ${order.needActionReason}, need_action = ${needAction}, reported_amount = ${order.reportedAmount},
       amount = ${order.amount}, sequence = ${order.sequence}, updated_at = ${order.updatedAt}
     WHERE id = ${order.id}`;
}

/** A new attempt's INSERT, ignored when its id exists. */
function attemptInsert(m: EntityManager, a: PaymentAttemptEntity): Sql {
  return sql`INSERT INTO ${tableOf(m, PaymentAttemptEntity)} (order_id, payment_id, provider, status, amount, currency, status_code, created_at, updated_at)
       VALUES (${a.orderId}, ${a.paymentId}, ${a.provider}, ${a.status}, ${a.amount}, ${a.currency}, ${a.statusCode ?? null}, ${a.createdAt}, ${a.updatedAt})
       ON CONFLICT DO NOTHING`;
}

/** An entity's table, quoted, as TypeORM's metadata names it (its schema set by the data source). */
function tableOf(m: EntityManager, entity: typeof OrderEntity | typeof PaymentAttemptEntity): Sql {
  const meta = m.connection.getMetadata(entity);
  return meta.schema ? ident(meta.schema, meta.tableName) : ident(meta.tableName);
}

/** The orders row's columns and the entity's properties, for raw reads (TypeORM's metadata, read once). */
let orderColumns: { property: string; column: string }[] | undefined;

export function orderFromRow(m: EntityManager, row: Record<string, unknown>): OrderEntity {
  orderColumns ??= m.connection
    .getMetadata(OrderEntity)
    .columns.map((c) => ({ property: c.propertyName, column: c.databaseName }));
  const order = new OrderEntity() as unknown as Record<string, unknown>;
  // The entity's transformers are the identity (numeric stays the driver's string): nothing to convert.
  for (const { property, column } of orderColumns) order[property] = row[column];
  return order as unknown as OrderEntity;
}

@Injectable()
export class OrderRepository {
  constructor(@Inject(ORDERS_CONFIG) private readonly config: OrdersConfig) {}

  /**
   * Locks the order row for the rest of the transaction: one change at a time per order. Raw SQL
   * with the entity's columns read once (it runs for every send and every operator action; TypeORM
   * built the same statement anew each time).
   */
  async findForUpdate(m: EntityManager, id: string): Promise<OrderEntity | null> {
    const rows: Record<string, unknown>[] = await m.query(
      `SELECT * FROM "${this.config.schema}".orders WHERE id = $1 FOR UPDATE`,
      [id],
    );
    return rows.length === 0 ? null : orderFromRow(m, rows[0]);
  }

  /**
   * Who resolved the locked order by hand (decision 301): the operator of its order.resolve, in the
   * resolve's transaction. Not on the order's event nor its callbacks: merchants never see it.
   */
  async recordResolver(m: EntityManager, orderId: string, operator: OperatorIdentity): Promise<void> {
    await m.query(`UPDATE "${this.config.schema}".orders SET resolved_by = $1 WHERE id = $2`, [
      JSON.stringify(operator),
      orderId,
    ]);
  }

  /** Records the hosted link's one payment on the locked order. */
  async markLinkUsed(m: EntityManager, order: OrderEntity): Promise<void> {
    await m.getRepository(OrderEntity).update(
      { id: order.id },
      {
        linkUsedAt: order.linkUsedAt,
        cardToken: order.cardToken,
        cardMasked: order.cardMasked,
        pageMethod: order.pageMethod,
        instructions: order.instructions,
      },
    );
  }

  /** Locks up to `limit` hosted orders whose link expired unpaid, skipping those another instance holds. */
  claimExpiredLinks(m: EntityManager, now: Date, limit: number): Promise<OrderEntity[]> {
    return m
      .getRepository(OrderEntity)
      .createQueryBuilder('o')
      .where(`o.status = 'registered' AND o.link_hash IS NOT NULL AND o.link_used_at IS NULL`)
      .andWhere('o.link_expires_at <= :now', { now })
      .orderBy('o.link_expires_at', 'ASC')
      .limit(limit)
      .setLock('pessimistic_write')
      .setOnLocked('skip_locked')
      .getMany();
  }

  findById(m: EntityManager, id: string): Promise<OrderEntity | null> {
    return m.getRepository(OrderEntity).findOne({ where: { id } });
  }

  findOfShop(m: EntityManager, id: string, shopId: string): Promise<OrderEntity | null> {
    return m.getRepository(OrderEntity).findOne({ where: { id, shopId } });
  }

  findByMerchantOrderId(m: EntityManager, shopId: string, merchantOrderId: string): Promise<OrderEntity | null> {
    return m.getRepository(OrderEntity).findOne({ where: { shopId, merchantOrderId } });
  }

  /**
   * Any shop's orders for operators, newest first, after the cursor (created_at, id): the index
   * on (status, created_at) serves the need_action queue, the shop's and the merchant id's indexes
   * the searches.
   */
  listForOperator(
    m: EntityManager,
    f: {
      status?: string;
      shopId?: string;
      merchantOrderId?: string;
      after?: { createdAt: Date; id: string };
      limit: number;
    },
  ): Promise<OrderEntity[]> {
    const q = m.getRepository(OrderEntity).createQueryBuilder('o');
    if (f.status) q.andWhere('o.status = :status', { status: f.status });
    if (f.shopId) q.andWhere('o.shop_id = :shopId', { shopId: f.shopId });
    if (f.merchantOrderId) q.andWhere('o.merchant_order_id = :merchantOrderId', { merchantOrderId: f.merchantOrderId });
    if (f.after)
      q.andWhere('(o.created_at, o.id) < (:createdAt, :id)', { createdAt: f.after.createdAt, id: f.after.id });
    return q.orderBy('o.created_at', 'DESC').addOrderBy('o.id', 'DESC').limit(f.limit).getMany();
  }

  payments(m: EntityManager, orderId: string): Promise<PaymentAttemptEntity[]> {
    return m
      .getRepository(PaymentAttemptEntity)
      .find({ where: { orderId }, order: { createdAt: 'ASC', paymentId: 'ASC' } });
  }

  async refunds(m: EntityManager, orderId: string): Promise<RefundRow[]> {
    const rows: { id: string; amount: string; currency: string; created_at: Date }[] = await m.query(
      `SELECT id, amount::text, currency, created_at FROM "${this.config.schema}".refunds WHERE order_id = $1 ORDER BY created_at, id`,
      [orderId],
    );
    return rows.map((r) => ({ refundId: r.id, amount: r.amount, currency: r.currency, createdAt: r.created_at }));
  }

  /** The attempts and refunds of many orders in two queries: the operators' lists show whole views. */
  async partsOf(
    m: EntityManager,
    orderIds: string[],
  ): Promise<Map<string, { payments: PaymentAttemptEntity[]; refunds: RefundRow[] }>> {
    const parts = new Map(
      orderIds.map((id) => [id, { payments: [] as PaymentAttemptEntity[], refunds: [] as RefundRow[] }]),
    );
    if (!orderIds.length) return parts;
    const payments = await m
      .getRepository(PaymentAttemptEntity)
      .createQueryBuilder('p')
      .where('p.orderId IN (:...ids)', { ids: orderIds })
      .orderBy('p.createdAt', 'ASC')
      .addOrderBy('p.paymentId', 'ASC')
      .getMany();
    for (const p of payments) parts.get(p.orderId)?.payments.push(p);
    const refunds: { order_id: string; id: string; amount: string; currency: string; created_at: Date }[] =
      await m.query(
        `SELECT order_id, id, amount::text, currency, created_at FROM "${this.config.schema}".refunds
        WHERE order_id = ANY($1::uuid[]) ORDER BY created_at, id`,
        [orderIds],
      );
    for (const r of refunds)
      parts
        .get(r.order_id)
        ?.refunds.push({ refundId: r.id, amount: r.amount, currency: r.currency, createdAt: r.created_at });
    return parts;
  }

  async refundExists(m: EntityManager, refundId: string): Promise<boolean> {
    const rows: unknown[] = await m.query(`SELECT 1 FROM "${this.config.schema}".refunds WHERE id = $1`, [refundId]);
    return rows.length > 0;
  }

  /** What the order's refunds add up to so far, as a decimal string. */
  async refundedTotal(m: EntityManager, orderId: string): Promise<string> {
    const [{ total }]: { total: string }[] = await m.query(
      `SELECT COALESCE(sum(amount), 0)::text AS total FROM "${this.config.schema}".refunds WHERE order_id = $1`,
      [orderId],
    );
    return total;
  }

  async insertRefund(m: EntityManager, orderId: string, refund: RefundRow): Promise<void> {
    await m.query(
      `INSERT INTO "${this.config.schema}".refunds (id, order_id, amount, currency, created_at) VALUES ($1, $2, $3, $4, $5)`,
      [refund.refundId, orderId, refund.amount, refund.currency, refund.createdAt],
    );
  }

  /** Locks up to `limit` open orders whose processing deadline has passed, skipping those another instance holds. */
  claimExpired(m: EntityManager, now: Date, limit: number): Promise<OrderEntity[]> {
    return (
      m
        .getRepository(OrderEntity)
        .createQueryBuilder('o')
        .where(`o.status IN ('registered', 'in_progress', 'need_action')`)
        // A payer charged twice waits for an operator however long it takes (decision 322): failing it
        // by the clock would hide the second charge.
        .andWhere(`o.need_action_reason IS DISTINCT FROM 'duplicate_payment'`)
        .andWhere('o.processing_deadline IS NOT NULL AND o.processing_deadline <= :now', { now })
        // The deadline was computed from the shop's settings as its creator knew them (an instance
        // may have used a read up to a second old, decision 238, or committed just after support
        // raised the timeout): the later of it and the one the current settings give counts.
        .andWhere(
          `NOT EXISTS (SELECT 1 FROM "${this.config.schema}".shop_settings s WHERE s.shop_id = o.shop_id
           AND o.created_at + make_interval(secs => COALESCE((s.settings -> 'processingTimeout' -> 'byPaymentSetting' ->> o.instrument_type)::int,
                                                             (s.settings -> 'processingTimeout' ->> 'defaultSeconds')::int)) > :now)`,
        )
        .orderBy('o.processing_deadline', 'ASC')
        .limit(limit)
        .setLock('pessimistic_write')
        .setOnLocked('skip_locked')
        .getMany()
    );
  }

  /** Recomputes the processing deadline of the shop's open, non-crypto orders from its new timeouts. */
  async reapplyProcessingTimeouts(
    m: EntityManager,
    shopId: string,
    timeouts: { byPaymentSetting: Record<string, number>; defaultSeconds: number },
  ): Promise<void> {
    await m.query(
      `UPDATE "${this.config.schema}".orders SET processing_deadline = created_at + make_interval(secs => COALESCE(($2::jsonb ->> instrument_type)::int, $3::int))
       WHERE shop_id = $1 AND NOT is_crypto AND status IN ('registered', 'in_progress', 'need_action')`,
      [shopId, JSON.stringify(timeouts.byPaymentSetting), timeouts.defaultSeconds],
    );
  }

  /** Records a new attempt (the caller holds the order's lock, so nobody records it meanwhile). */
  async insertAttempt(m: EntityManager, attempt: PaymentAttemptEntity): Promise<void> {
    await m.getRepository(PaymentAttemptEntity).insert(attempt as QueryDeepPartialEntity<PaymentAttemptEntity>);
  }

  /** Records a new attempt unless one with its id exists (which is kept as it is); true when inserted. */
  async insertAttemptIfAbsent(m: EntityManager, attempt: PaymentAttemptEntity): Promise<boolean> {
    const insert = sql`${attemptInsert(m, attempt)} RETURNING payment_id`;
    const rows: unknown[] = await m.query(insert.text, insert.values);
    return rows.length === 1;
  }

  /**
   * A send's outcome in one statement (decisions 241, 246): the attempt unless one with its id
   * exists (kept as it is); when the send moved the order, the transitioned order and its outbox
   * rows; and `finish`, the dispatch row's end as a CTE (`DispatchQueue.finishCte`). The caller
   * holds the order's and the row's locks and wakes the relay.
   */
  async recordSendOutcome(
    m: EntityManager,
    attempt: PaymentAttemptEntity,
    transitioned: { order: OrderEntity; events: readonly OutboxItem[] } | null,
    finish?: Sql,
  ): Promise<void> {
    if (!transitioned && !finish) {
      await this.insertAttemptIfAbsent(m, attempt);
      return;
    }
    const ctes = [sql`a AS (${attemptInsert(m, attempt)})`];
    if (transitioned) {
      ctes.push(sql`o AS (${transitionUpdate(m, transitioned.order)} RETURNING id)`);
      ctes.push(outboxCte(this.config.schema, 'e', 'o', transitioned.events));
    }
    if (finish) ctes.push(finish);
    const statement = sql`WITH ${join(ctes)} SELECT 1`;
    await preparedQuery(m, statement.text, statement.values);
  }

  /**
   * Locks a claimed dispatch row and its order in one statement (for the dispatcher's record):
   * null when the row is no longer this claim's (its lease ran out and another dispatcher took it).
   */
  async lockDispatchWithOrder(
    m: EntityManager,
    paymentId: string,
    claimToken: string,
  ): Promise<{ sends: number; order: OrderEntity; earlierSendMayHaveReached: boolean } | null> {
    // An earlier send of this attempt may have reached the provider (decision 343): one answered
    // 500/502/504/408, or one whose answer was never recorded (a crash or a lost claim between
    // send and record: claims count `sends`, recorded answers `send_answers`).
    const rows = await preparedQuery<Record<string, unknown>>(
      m,
      `SELECT d.sends AS "dispatch.sends",
              (d.may_have_reached OR d.sends - 1 > cardinality(d.send_answers)) AS "dispatch.reached", o.*
         FROM "${this.config.schema}".provider_dispatches d
         JOIN "${this.config.schema}".orders o ON o.id = d.order_id
        WHERE d.payment_id = $1 AND d.status = 'pending' AND d.claim_token = $2
        FOR UPDATE`,
      [paymentId, claimToken],
    );
    if (rows.length === 0) return null;
    return {
      sends: Number(rows[0]['dispatch.sends']),
      order: orderFromRow(m, rows[0]),
      earlierSendMayHaveReached: rows[0]['dispatch.reached'] === true,
    };
  }

  /**
   * Marks an attempt sent again after an answer that does not prove the provider took nothing
   * (a 500, 502, 504 or 408): it never fails over, whatever its last send says (decision 343).
   */
  async markMayHaveReached(m: EntityManager, paymentId: string): Promise<void> {
    await m.query(
      `UPDATE "${this.config.schema}".provider_dispatches SET may_have_reached = true WHERE payment_id = $1`,
      [paymentId],
    );
  }

  /** Writes an attempt that is known to exist (read in this transaction) without re-reading it. */
  async updateAttempt(m: EntityManager, attempt: PaymentAttemptEntity): Promise<void> {
    await m.getRepository(PaymentAttemptEntity).update(
      { orderId: attempt.orderId, paymentId: attempt.paymentId },
      {
        status: attempt.status,
        amount: attempt.amount,
        currency: attempt.currency,
        statusCode: attempt.statusCode,
        updatedAt: attempt.updatedAt,
      },
    );
  }

  /**
   * The attempt a provider callback without a paymentId belongs to: our newest attempt of the order
   * sent to that provider (its dispatch row exists from the order's creation, even before the
   * provider accepted it), else none.
   */
  async latestDispatchedPaymentId(m: EntityManager, orderId: string, provider: string): Promise<string | null> {
    const rows: { payment_id: string }[] = await m.query(
      `SELECT payment_id FROM "${this.config.schema}".provider_dispatches WHERE order_id = $1 AND provider = $2 ORDER BY created_at DESC, payment_id DESC LIMIT 1`,
      [orderId, provider],
    );
    return rows[0]?.payment_id ?? null;
  }

  findAttempt(m: EntityManager, orderId: string, paymentId: string): Promise<PaymentAttemptEntity | null> {
    return m.getRepository(PaymentAttemptEntity).findOne({ where: { orderId, paymentId } });
  }

  /**
   * Locks the orders with these ids for the rest of the transaction, in one raw statement, in id
   * order (two batches that share orders wait for each other instead of deadlocking).
   */
  async lockMany(m: EntityManager, ids: string[]): Promise<Map<string, OrderEntity>> {
    const rows: Record<string, unknown>[] = await m.query(
      `SELECT * FROM "${this.config.schema}".orders WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`,
      [ids],
    );
    return new Map(rows.map((r) => [r.id as string, orderFromRow(m, r)]));
  }

  /** latestDispatchedPaymentId for many orders at once, keyed by `${orderId} ${provider}`. */
  async latestDispatchedPaymentIds(m: EntityManager, orderIds: string[]): Promise<Map<string, string>> {
    const rows: { order_id: string; provider: string; payment_id: string }[] = await m.query(
      `SELECT DISTINCT ON (order_id, provider) order_id, provider, payment_id FROM "${this.config.schema}".provider_dispatches
        WHERE order_id = ANY($1::uuid[]) ORDER BY order_id, provider, created_at DESC, payment_id DESC`,
      [orderIds],
    );
    return new Map(rows.map((r) => [`${r.order_id} ${r.provider}`, r.payment_id]));
  }
}
