import { EntityManager } from 'typeorm';
import { type OutboxItem, outboxCte } from '@payments/messaging';
import { preparedQuery } from '@payments/platform';
import type { DispatchQueue } from '@payments/provider-dispatch';
import { ident, join, param, raw, type Sql, sql } from '@payments/sql';
import { PayerIdentity } from '../customers/customer.repository';
import { OrderEntity } from '../order.entity';

/**
 * The orders columns a new order writes: name, SQL type and the entity's value, listed once
 * (need_action keeps its default; customer_id comes from the customer CTE).
 */
const COLUMNS: readonly (readonly [column: string, type: string, value: (o: OrderEntity) => unknown])[] = [
  ['id', 'uuid', (o) => o.id],
  ['shop_id', 'uuid', (o) => o.shopId],
  ['merchant_order_id', 'text', (o) => o.merchantOrderId],
  ['status', 'text', (o) => o.status],
  ['status_code', 'text', (o) => o.statusCode],
  ['amount', 'numeric', (o) => o.amount],
  ['original_amount', 'numeric', (o) => o.originalAmount],
  ['reported_amount', 'numeric', (o) => o.reportedAmount],
  ['currency', 'text', (o) => o.currency],
  ['token_standard', 'text', (o) => o.tokenStandard],
  ['need_action_reason', 'text', (o) => o.needActionReason],
  ['description', 'text', (o) => o.description],
  ['payer', 'jsonb', (o) => json(o.payer)],
  ['instrument_type', 'text', (o) => o.instrumentType],
  ['payment_settings', 'jsonb', (o) => json(o.paymentSettings)],
  ['callback_url', 'text', (o) => o.callbackUrl],
  ['recipient', 'jsonb', (o) => json(o.recipient)],
  ['processing_deadline', 'timestamptz', (o) => o.processingDeadline],
  ['is_crypto', 'boolean', (o) => o.isCrypto],
  ['link_hash', 'text', (o) => o.linkHash],
  ['link_expires_at', 'timestamptz', (o) => o.linkExpiresAt],
  ['link_used_at', 'timestamptz', (o) => o.linkUsedAt],
  ['page_locale', 'text', (o) => o.pageLocale],
  ['redirect_urls', 'jsonb', (o) => json(o.redirectUrls)],
  ['card_token', 'text', (o) => o.cardToken],
  ['card_masked', 'text', (o) => o.cardMasked],
  ['page_method', 'text', (o) => o.pageMethod],
  ['instructions', 'jsonb', (o) => json(o.instructions)],
  ['sequence', 'int', (o) => o.sequence],
  ['created_at', 'timestamptz', (o) => o.createdAt],
  ['updated_at', 'timestamptz', (o) => o.updatedAt],
];

const COLUMN_LIST = raw(COLUMNS.map(([column]) => column).join(', '));

function json(v: unknown): string | null {
  return v === null || v === undefined ? null : JSON.stringify(v);
}

/** The first payment attempt queued with a new order (the dispatcher's row, as ProviderDispatchRepository.enqueue writes it). */
export interface QueuedAttempt {
  paymentId: string;
  provider: string;
  amount: string;
  currency: string;
  tokenStandard: string | null;
}

/** What is written with a new order in its statement, only if the order is inserted. */
export interface WrittenWithOrder {
  /** The attempt for the dispatcher; none for an order that waits for its payer. */
  attempt: QueuedAttempt | null;
  /** The order's events (its outbox rows). */
  events: readonly OutboxItem[];
  now: Date;
}

/**
 * The one statement of a new order (decisions 217, 237): its customer (the same three ways as
 * customers/customer.repository.ts describes), the order row and, when asked, its queued attempt
 * (the dispatch queue's own fragment, `DispatchQueue.enqueueCte`) and outbox rows, written only
 * when neither the order id nor the shop's merchant order id is taken — no customer row, attempt
 * or event is made for a retry. The text depends only on the identity kind, whether an attempt
 * is queued and how many events there are: one prepared statement per shape.
 */
export class RegisteredOrderInsert {
  constructor(
    private readonly schema: string,
    private readonly dispatches: DispatchQueue,
  ) {}

  /**
   * Inserts the customer and the order, and what `also` names with them; the customer id when
   * inserted (also set on `order`), undefined when not (the caller looks at what is there).
   * Without a transaction it is one statement, committed alone.
   */
  async insert(
    m: EntityManager,
    order: OrderEntity,
    payer: PayerIdentity,
    newCustomerId: string,
    also?: WrittenWithOrder,
  ): Promise<string | undefined> {
    const statement = this.statement(order, payer, newCustomerId, also);
    const rows = await preparedQuery<{ customer_id: string }>(m, statement.text, statement.values);
    if (rows.length === 0) return undefined;
    order.customerId = rows[0].customer_id;
    return rows[0].customer_id;
  }

  private statement(order: OrderEntity, payer: PayerIdentity, newCustomerId: string, also?: WrittenWithOrder): Sql {
    const table = (name: string) => ident(this.schema, name);
    const id = param(order.id);
    const shop = param(order.shopId);
    const values = join(
      COLUMNS.map(([column, type, value]) => {
        const v = column === 'id' ? id : column === 'shop_id' ? shop : value(order);
        return sql`${v}::${raw(type)}`;
      }),
    );
    const free = sql`NOT EXISTS (SELECT 1 FROM ${table('orders')} WHERE id = ${id}::uuid OR (shop_id = ${shop}::uuid AND merchant_order_id = ${order.merchantOrderId}::text))`;
    const email = payer.email ?? null;
    const phone = payer.phone ?? null;
    const customer = payer.customerId
      ? sql`INSERT INTO ${table('customers')} (id, shop_id, external_id, email, phone)
         SELECT ${newCustomerId}::uuid, ${shop}::uuid, ${payer.customerId}::text, ${email}::text, ${phone}::text WHERE ${free}
         ON CONFLICT (shop_id, external_id) WHERE external_id IS NOT NULL DO UPDATE SET external_id = EXCLUDED.external_id`
      : email && phone
        ? sql`INSERT INTO ${table('customers')} (id, shop_id, email, phone)
         SELECT ${newCustomerId}::uuid, ${shop}::uuid, ${email}::text, ${phone}::text WHERE ${free}
         ON CONFLICT (shop_id, lower(email), phone) WHERE external_id IS NULL AND email IS NOT NULL AND phone IS NOT NULL
         DO UPDATE SET email = ${table('customers')}.email`
        : sql`INSERT INTO ${table('customers')} (id, shop_id, email, phone)
         SELECT ${newCustomerId}::uuid, ${shop}::uuid, ${email}::text, ${phone}::text WHERE ${free}`;
    const parts = [
      sql`c AS (${customer} RETURNING id)`,
      sql`o AS (INSERT INTO ${table('orders')} (${COLUMN_LIST}, customer_id)
            SELECT ${values}, c.id FROM c ON CONFLICT DO NOTHING RETURNING id, customer_id)`,
    ];
    const attempt = also?.attempt;
    // A data-modifying CTE always runs: FROM o makes these write nothing when the order was not inserted.
    if (attempt)
      parts.push(this.dispatches.enqueueCte('d', 'o', { ...attempt, dispatchId: attempt.paymentId }, also.now));
    if (also && also.events.length > 0) parts.push(outboxCte(this.schema, 'e', 'o', also.events));
    return sql`WITH ${join(parts, ',\n      ')}\n      SELECT customer_id FROM o`;
  }
}
