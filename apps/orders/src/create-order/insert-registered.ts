import { EntityManager } from 'typeorm';
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

/**
 * The one statement of a new order (docs/decisions.md 217): its customer (the same three ways as
 * customers/customer.repository.ts describes) and the order row, written only when neither the order id nor the
 * shop's merchant order id is taken — no customer row is made for a retry. Returns the customer id
 * when the order was inserted, undefined when it was not (the caller looks at what is there).
 * Built once per schema: the text is the same for every order.
 */
export class RegisteredOrderInsert {
  private readonly byIdentity: { external: string; contact: string; anonymous: string };

  constructor(schema: string) {
    const s = `"${schema}"`;
    const n = COLUMNS.length;
    const orderSelect = COLUMNS.map(([, type], i) => `$${i + 1}::${type}`).join(', ');
    const free = `NOT EXISTS (SELECT 1 FROM ${s}.orders WHERE id = $1::uuid OR (shop_id = $2::uuid AND merchant_order_id = $3::text))`;
    const c = (insert: string) => `WITH c AS (${insert} RETURNING id),
      o AS (INSERT INTO ${s}.orders (${COLUMNS.map(([name]) => name).join(', ')}, customer_id)
            SELECT ${orderSelect}, c.id FROM c ON CONFLICT DO NOTHING RETURNING customer_id)
      SELECT customer_id FROM o`;
    // $n+1 the new customer's id, then the identity's fields the statement uses, each numbered.
    const cid = `$${n + 1}::uuid`;
    this.byIdentity = {
      external: c(
        `INSERT INTO ${s}.customers (id, shop_id, external_id, email, phone)
         SELECT ${cid}, $2::uuid, $${n + 2}::text, $${n + 3}::text, $${n + 4}::text WHERE ${free}
         ON CONFLICT (shop_id, external_id) WHERE external_id IS NOT NULL DO UPDATE SET external_id = EXCLUDED.external_id`,
      ),
      contact: c(
        `INSERT INTO ${s}.customers (id, shop_id, email, phone)
         SELECT ${cid}, $2::uuid, $${n + 2}::text, $${n + 3}::text WHERE ${free}
         ON CONFLICT (shop_id, lower(email), phone) WHERE external_id IS NULL AND email IS NOT NULL AND phone IS NOT NULL
         DO UPDATE SET email = ${s}.customers.email`,
      ),
      anonymous: c(
        `INSERT INTO ${s}.customers (id, shop_id, email, phone)
         SELECT ${cid}, $2::uuid, $${n + 2}::text, $${n + 3}::text WHERE ${free}`,
      ),
    };
  }

  /** Inserts the customer and the order; the customer id when inserted (also set on `order`). */
  async insert(
    m: EntityManager,
    order: OrderEntity,
    payer: PayerIdentity,
    newCustomerId: string,
  ): Promise<string | undefined> {
    const contact = [payer.email ?? null, payer.phone ?? null];
    const [sql, identity] = payer.customerId
      ? [this.byIdentity.external, [newCustomerId, payer.customerId, ...contact]]
      : [payer.email && payer.phone ? this.byIdentity.contact : this.byIdentity.anonymous, [newCustomerId, ...contact]];
    const rows: { customer_id: string }[] = await m.query(sql, [...values(order), ...identity]);
    if (rows.length === 0) return undefined;
    order.customerId = rows[0].customer_id;
    return rows[0].customer_id;
  }
}
