import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AccountRef, accountKey, FeeSchedule, NO_FEE, Posting, RateInForce } from '@payments/ledger-domain';
import { Outbox } from '@payments/messaging';
import { Amount, amountOf, MoneyDecimal } from '@payments/money';
import { LedgerConfig } from '../config';
import { SANDBOX_FEED_SOURCE } from '../convert-rates/sandbox-rate-feed';
import { balanceChangedItems, withMerchantBalances } from '../publish-balance/balance-events';
import { LEDGER_CONFIG } from '../tokens';

export type TransactionKind =
  | 'order_completed'
  | 'order_refunded'
  | 'settlement'
  | 'payout_reserved'
  | 'payout_posted'
  | 'payout_voided'
  | 'refund_reserved'
  | 'refund_voided'
  | 'suspense_converted'
  | 'manual_adjustment'
  | 'p2p_fee';

export interface NewTransaction {
  id: string;
  /** The key of what caused it (the consumed event's id, the payout's phase): a second one posts nothing. */
  idempotencyKey: string;
  kind: TransactionKind;
  status?: 'posted' | 'awaiting_rate';
  shopId: string;
  sourceType: 'order' | 'payout' | 'adjustment' | 'p2p';
  sourceId: string;
  provider: string | null;
  operationCurrency: string;
  gross: Amount;
  fee: Amount;
  net: Amount;
  balanceCurrency: string;
  /** What the shop's balance moved by, in the balance currency. */
  balanceAmount: Amount;
  rate?: RateInForce | null;
  createdAt: Date;
  availableOn?: Date | null;
}

/** The shop's balances the books locked for one database transaction, kept current as it posts. */
export class LockedBalances {
  constructor(private readonly balances: Map<string, Amount>) {}

  of(ref: AccountRef): Amount {
    const b = this.balances.get(accountKey(ref));
    if (!b) throw new Error(`account ${accountKey(ref)} was not locked before it was read`);
    return b;
  }

  apply(postings: readonly Posting[]): void {
    for (const p of postings) this.balances.set(accountKey(p.account), this.of(p.account).plus(p.amount));
  }
}

/** The credit of a completed order, as a refund of it needs it. */
export interface OriginalCredit {
  shopId: string;
  /** The order currency (the credit's operation currency). */
  orderCurrency: string;
  provider: string | null;
  status: 'posted' | 'awaiting_rate';
  balanceCurrency: string;
  rate: Amount | null;
}

@Injectable()
export class LedgerRepository {
  private readonly s: string;
  private readonly outbox: Outbox;

  constructor(@Inject(LEDGER_CONFIG) config: Pick<LedgerConfig, 'schema'>) {
    this.s = config.schema;
    this.outbox = new Outbox(config.schema);
  }

  /**
   * Opens the accounts that do not exist yet and locks them all in key order (so two
   * transactions never wait for each other in a cycle); answers their balances. With every shop
   * account come the shop's available, pending and reserved of its currency, which its balance
   * event carries (decision 313).
   */
  async lock(m: EntityManager, refs: readonly AccountRef[]): Promise<LockedBalances> {
    const unique = new Map(withMerchantBalances(refs).map((r) => [accountKey(r), r]));
    const rows = [...unique.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    await m.query(
      `INSERT INTO "${this.s}".accounts (key, owner, shop_id, kind, provider, currency)
       SELECT * FROM unnest($1::text[], $2::text[], $3::uuid[], $4::text[], $5::text[], $6::text[])
       ON CONFLICT (key) DO NOTHING`,
      [
        rows.map(([k]) => k),
        rows.map(([, r]) => r.owner),
        rows.map(([, r]) => (r.owner === 'shop' ? r.shopId : null)),
        rows.map(([, r]) => (r.owner === 'shop' ? r.kind : null)),
        rows.map(([, r]) => (r.owner === 'clearing' ? r.provider : null)),
        rows.map(([, r]) => r.currency),
      ],
    );
    const locked: { key: string; balance: string }[] = await m.query(
      `SELECT key, balance::text FROM "${this.s}".accounts WHERE key = ANY($1::text[]) ORDER BY key FOR UPDATE`,
      [rows.map(([k]) => k)],
    );
    return new LockedBalances(new Map(locked.map((r) => [r.key, amountOf(r.balance)])));
  }

  /**
   * Posts a transaction: its row, its postings and the balances they move, and the shop's balance
   * events in the outbox (decision 313), or nothing when its idempotency key (or the one credit of
   * an order, the one fee of a P2P transaction) is already there. `books` are the balances the
   * caller locked (`lock`), every account of `postings` among them. Answers whether it posted.
   */
  async post(
    m: EntityManager,
    tx: NewTransaction,
    postings: readonly Posting[],
    books: LockedBalances,
  ): Promise<boolean> {
    const inserted: unknown[] = await m.query(
      `INSERT INTO "${this.s}".transactions (id, idempotency_key, kind, status, shop_id, source_type, source_id, provider,
         operation_currency, gross, fee, net, balance_currency, balance_amount, rate, rate_source, rate_valid_from,
         created_at, available_on)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
       ON CONFLICT DO NOTHING RETURNING id`,
      [
        tx.id,
        tx.idempotencyKey,
        tx.kind,
        tx.status ?? 'posted',
        tx.shopId,
        tx.sourceType,
        tx.sourceId,
        tx.provider,
        tx.operationCurrency,
        tx.gross.toFixed(),
        tx.fee.toFixed(),
        tx.net.toFixed(),
        tx.balanceCurrency,
        tx.balanceAmount.toFixed(),
        tx.rate?.rate.toFixed() ?? null,
        tx.rate?.source ?? null,
        tx.rate?.validFrom ?? null,
        tx.createdAt,
        tx.availableOn ?? null,
      ],
    );
    if (inserted.length === 0) return false;
    const keys = postings.map((p) => accountKey(p.account));
    const amounts = postings.map((p) => p.amount.toFixed());
    await m.query(
      `INSERT INTO "${this.s}".postings (transaction_id, account_key, currency, amount, created_at)
       SELECT $1, k, a.currency, v, $4 FROM unnest($2::text[], $3::numeric[]) AS p(k, v)
       JOIN "${this.s}".accounts a ON a.key = p.k`,
      [tx.id, keys, amounts, tx.createdAt],
    );
    await m.query(
      `UPDATE "${this.s}".accounts a SET balance = a.balance + p.v
       FROM unnest($1::text[], $2::numeric[]) AS p(k, v) WHERE a.key = p.k`,
      [keys, amounts],
    );
    books.apply(postings);
    await this.outbox.add(m, balanceChangedItems(tx, postings, books));
    return true;
  }

  async settlementDelays(m: EntityManager, shopIds: readonly string[]): Promise<Map<string, number>> {
    const rows: { shop_id: string; settlement_delay_seconds: number }[] = await m.query(
      `SELECT shop_id, settlement_delay_seconds FROM "${this.s}".shop_settings WHERE shop_id = ANY($1::uuid[])`,
      [shopIds],
    );
    return new Map(rows.map((r) => [r.shop_id, r.settlement_delay_seconds]));
  }

  /** The shop's fee for a method in a currency: the method's own row, else the shop's `*` row, else none. */
  async feeSchedule(m: EntityManager, shopId: string, method: string | null, currency: string): Promise<FeeSchedule> {
    const rows: { percent: string; fixed: string; minimum: string }[] = await m.query(
      `SELECT percent::text, fixed::text, minimum::text FROM "${this.s}".fee_schedules
       WHERE shop_id = $1 AND currency = $3 AND method IN ($2, '*') ORDER BY (method = '*') LIMIT 1`,
      [shopId, method ?? '*', currency],
    );
    const r = rows[0];
    return r ? { percent: amountOf(r.percent), fixed: amountOf(r.fixed), minimum: amountOf(r.minimum) } : NO_FEE;
  }

  /**
   * The rate of the pair in force at `at`: the latest that started by then and has not ended, an
   * operator's before the sandbox feed's (decision 305: the feed steps aside for any other rate).
   */
  async rateInForce(m: EntityManager, base: string, quote: string, at: Date): Promise<RateInForce | null> {
    const rows: { rate: string; source: string; valid_from: Date }[] = await m.query(
      `SELECT rate::text, source, valid_from FROM "${this.s}".rates
       WHERE base = $1 AND quote = $2 AND valid_from <= $3 AND (valid_to IS NULL OR valid_to > $3)
       ORDER BY source = $4, valid_from DESC, id DESC LIMIT 1`,
      [base, quote, at, SANDBOX_FEED_SOURCE],
    );
    const r = rows[0];
    return r ? { rate: amountOf(r.rate), source: r.source, validFrom: r.valid_from } : null;
  }

  /**
   * The credit of a completed order as a refund needs it: once a credit that waited for a rate is
   * converted (decision 304), it is the converted credit (balance currency, the conversion's rate).
   */
  async originalCredit(m: EntityManager, orderId: string): Promise<OriginalCredit | null> {
    const rows: {
      shop_id: string;
      operation_currency: string;
      provider: string | null;
      status: OriginalCredit['status'];
      balance_currency: string;
      rate: string | null;
      converted_currency: string | null;
      converted_rate: string | null;
    }[] = await m.query(
      `SELECT c.shop_id, c.operation_currency, c.provider, c.status, c.balance_currency, c.rate::text,
              v.balance_currency AS converted_currency, v.rate::text AS converted_rate
         FROM "${this.s}".transactions c
         LEFT JOIN LATERAL (SELECT balance_currency, rate FROM "${this.s}".transactions v
                             WHERE v.source_id = c.source_id AND v.kind = 'suspense_converted'
                             ORDER BY v.created_at DESC LIMIT 1) v ON true
        WHERE c.source_id = $1 AND c.kind = 'order_completed'`,
      [orderId],
    );
    const r = rows[0];
    if (!r) return null;
    const converted = r.status === 'awaiting_rate' && r.converted_currency !== null;
    return {
      shopId: r.shop_id,
      orderCurrency: r.operation_currency,
      provider: r.provider,
      status: converted ? 'posted' : r.status,
      balanceCurrency: converted ? r.converted_currency! : r.balance_currency,
      rate: converted ? amountOf(r.converted_rate!) : r.rate ? amountOf(r.rate) : null,
    };
  }

  async scheduleSettlement(
    m: EntityManager,
    transactionId: string,
    shopId: string,
    currency: string,
    amount: Amount,
    availableOn: Date,
  ): Promise<void> {
    await m.query(
      `INSERT INTO "${this.s}".pending_settlements (transaction_id, shop_id, currency, amount, available_on)
       VALUES ($1, $2, $3, $4, $5)`,
      [transactionId, shopId, currency, amount.toFixed(), availableOn],
    );
  }

  /**
   * Takes up to `limit` credits due by `now` off the queue, skipping those another instance holds
   * (FOR UPDATE SKIP LOCKED): several sweepers share the work, none settles a credit twice.
   */
  async takeDueSettlements(
    m: EntityManager,
    now: Date,
    limit: number,
  ): Promise<{ transactionId: string; shopId: string; currency: string; amount: Amount }[]> {
    const rows: { transaction_id: string; shop_id: string; currency: string; amount: string }[] = await m.query(
      `WITH taken AS (DELETE FROM "${this.s}".pending_settlements WHERE transaction_id IN (
         SELECT transaction_id FROM "${this.s}".pending_settlements WHERE available_on <= $1
         ORDER BY available_on LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING transaction_id, shop_id, currency, amount::text)
       SELECT * FROM taken`,
      [now, limit],
    );
    return rows.map((r) => ({
      transactionId: r.transaction_id,
      shopId: r.shop_id,
      currency: r.currency,
      amount: amountOf(r.amount),
    }));
  }
}

export const ZERO = new MoneyDecimal(0);
