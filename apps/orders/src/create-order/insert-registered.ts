import { EntityManager } from 'typeorm';
import { type OutboxItem, outboxCte } from '@payments/messaging';
import { preparedQuery } from '@payments/platform';
import { PayerIdentity } from '../customers/customer.repository';
import { OrderEntity } from '../order.entity';

/** The orders columns a new order writes, in the order of `values` below (need_action keeps its default). */
const COLUMNS = [
  ['id', 'uuid'],
  ['shop_id', 'uuid'],
  ['merchant_order_id', 'text'],
  ['status', 'text'],
  ['status_code', 'text'],
  ['amount', 'numeric'],
  ['original_amount', 'numeric'],
  ['reported_amount', 'numeric'],
  ['currency', 'text'],
  ['token_standard', 'text'],
  ['need_action_reason', 'text'],
  ['description', 'text'],
  ['payer', 'jsonb'],
  ['instrument_type', 'text'],
  ['payment_settings', 'jsonb'],
  ['callback_url', 'text'],
  ['recipient', 'jsonb'],
  ['processing_deadline', 'timestamptz'],
  ['is_crypto', 'boolean'],
  ['link_hash', 'text'],
  ['link_expires_at', 'timestamptz'],
  ['link_used_at', 'timestamptz'],
  ['page_locale', 'text'],
  ['redirect_urls', 'jsonb'],
  ['card_token', 'text'],
  ['card_masked', 'text'],
  ['page_method', 'text'],
  ['instructions', 'jsonb'],
  ['sequence', 'int'],
  ['created_at', 'timestamptz'],
  ['updated_at', 'timestamptz'],
] as const;

const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

function values(o: OrderEntity): unknown[] {
  return [
    o.id,
    o.shopId,
    o.merchantOrderId,
    o.status,
    o.statusCode,
    o.amount,
    o.originalAmount,
    o.reportedAmount,
    o.currency,
    o.tokenStandard,
    o.needActionReason,
    o.description,
    json(o.payer),
    o.instrumentType,
    json(o.paymentSettings),
    o.callbackUrl,
    json(o.recipient),
    o.processingDeadline,
    o.isCrypto,
    o.linkHash,
    o.linkExpiresAt,
    o.linkUsedAt,
    o.pageLocale,
    json(o.redirectUrls),
    o.cardToken,
    o.cardMasked,
    o.pageMethod,
    json(o.instructions),
    o.sequence,
    o.createdAt,
    o.updatedAt,
  ];
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

type Identity = 'external' | 'contact' | 'anonymous';

/**
 * The one statement of a new order (docs/decisions.md 217, 237): its customer (the same three ways
 * as customers/customer.repository.ts describes), the order row and, when asked, its queued
 * attempt and outbox rows, written only when neither the order id nor the shop's merchant order id
 * is taken — no customer row, attempt or event is made for a retry. Returns the customer id when
 * the order was inserted, undefined when it was not (the caller looks at what is there). The texts
 * are built once per schema and shape: the same for every order.
 */
export class RegisteredOrderInsert {
  private readonly texts = new Map<string, string>();

  constructor(private readonly schema: string) {}

  /** The statement for an identity kind, with an attempt or not and `events` outbox rows. */
  private text(identity: Identity, attempt: boolean, events: number): string {
    const key = `${identity} ${attempt} ${events}`;
    let sql = this.texts.get(key);
    if (sql === undefined) this.texts.set(key, (sql = this.build(identity, attempt, events)));
    return sql;
  }

  private build(identity: Identity, attempt: boolean, events: number): string {
    const s = `"${this.schema}"`;
    const n = COLUMNS.length;
    const orderSelect = COLUMNS.map(([, type], i) => `$${i + 1}::${type}`).join(', ');
    const free = `NOT EXISTS (SELECT 1 FROM ${s}.orders WHERE id = $1::uuid OR (shop_id = $2::uuid AND merchant_order_id = $3::text))`;
    // $n+1 the new customer's id, then the identity's fields the statement uses, each numbered.
    const cid = `$${n + 1}::uuid`;
    const customer = {
      external: `INSERT INTO ${s}.customers (id, shop_id, external_id, email, phone)
         SELECT ${cid}, $2::uuid, $${n + 2}::text, $${n + 3}::text, $${n + 4}::text WHERE ${free}
         ON CONFLICT (shop_id, external_id) WHERE external_id IS NOT NULL DO UPDATE SET external_id = EXCLUDED.external_id`,
      contact: `INSERT INTO ${s}.customers (id, shop_id, email, phone)
         SELECT ${cid}, $2::uuid, $${n + 2}::text, $${n + 3}::text WHERE ${free}
         ON CONFLICT (shop_id, lower(email), phone) WHERE external_id IS NULL AND email IS NOT NULL AND phone IS NOT NULL
         DO UPDATE SET email = ${s}.customers.email`,
      anonymous: `INSERT INTO ${s}.customers (id, shop_id, email, phone)
         SELECT ${cid}, $2::uuid, $${n + 2}::text, $${n + 3}::text WHERE ${free}`,
    }[identity];
    let next = n + (identity === 'external' ? 5 : 4);
    const p = () => `$${next++}`;
    const parts = [
      `WITH c AS (${customer} RETURNING id)`,
      `o AS (INSERT INTO ${s}.orders (${COLUMNS.map(([name]) => name).join(', ')}, customer_id)
            SELECT ${orderSelect}, c.id FROM c ON CONFLICT DO NOTHING RETURNING id, customer_id)`,
    ];
    if (attempt) {
      const at = p();
      // The dispatcher's queue row (libs/provider-dispatch), in the order's statement: a data-modifying
      // CTE always runs, and FROM o makes it write nothing when the order was not inserted.
      parts.push(`d AS (INSERT INTO ${s}.provider_dispatches (payment_id, order_id, provider, amount, currency, token_standard, status, sends, next_attempt_at, created_at, updated_at)
          SELECT ${p()}::text, o.id, ${p()}::text, ${p()}::numeric, ${p()}::text, ${p()}::text, 'pending', 0, ${at}::timestamptz, ${at}::timestamptz, ${at}::timestamptz FROM o)`);
    }
    if (events > 0) {
      const placeholder = { topic: '', key: '', envelope: { eventId: '' } } as OutboxItem;
      parts.push(outboxCte(this.schema, 'e', 'o', Array(events).fill(placeholder), next).sql);
    }
    return `${parts.join(',\n      ')}\n      SELECT customer_id FROM o`;
  }

  /**
   * Inserts the customer and the order, and what `also` names with them; the customer id when
   * inserted (also set on `order`). Without a transaction it is one statement, committed alone.
   */
  async insert(
    m: EntityManager,
    order: OrderEntity,
    payer: PayerIdentity,
    newCustomerId: string,
    also?: WrittenWithOrder,
  ): Promise<string | undefined> {
    const contact = [payer.email ?? null, payer.phone ?? null];
    const [identity, identityValues]: [Identity, unknown[]] = payer.customerId
      ? ['external', [newCustomerId, payer.customerId, ...contact]]
      : [payer.email && payer.phone ? 'contact' : 'anonymous', [newCustomerId, ...contact]];
    const params = [...values(order), ...identityValues];
    const attempt = also?.attempt ?? null;
    const events = also?.events ?? [];
    if (also) {
      if (attempt)
        params.push(
          also.now,
          attempt.paymentId,
          attempt.provider,
          attempt.amount,
          attempt.currency,
          attempt.tokenStandard,
        );
      if (events.length > 0) params.push(...outboxCte(this.schema, 'e', 'o', events, params.length + 1).params);
    }
    const rows = await preparedQuery<{ customer_id: string }>(
      m,
      this.text(identity, attempt !== null, events.length),
      params,
    );
    if (rows.length === 0) return undefined;
    order.customerId = rows[0].customer_id;
    return rows[0].customer_id;
  }
}
