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
  sourceType: 'order' | 'payout' | 'adjustment' | 'p2p' | 'settlement';
  sourceId: string;
  /** A settlement (decision 351): the credit transactions it moved out of pending. */
  settledCredits?: readonly string[];
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

/** A transaction to post with its postings (`LedgerRepository.postMany`). */
export interface TransactionToPost {
  tx: NewTransaction;
  postings: readonly Posting[];
}

/** The shop's balances the books locked for one database transaction, kept current as it posts. */
export class LockedBalances {
  /** Set by `collectBalanceEvents`: what was posted since, told once per shop and currency (decision 339). */
  private collected: TransactionToPost[] | null = null;

  constructor(private readonly balances: Map<string, Amount>) {}

  of(ref: AccountRef): Amount {
    const b = this.balances.get(accountKey(ref));
    if (!b) throw new Error(`account ${accountKey(ref)} was not locked before it was read`);
    return b;
  }

  apply(postings: readonly Posting[]): void {
    for (const p of postings) this.balances.set(accountKey(p.account), this.of(p.account).plus(p.amount));
  }

  /** A copy to plan a batch on in order (each plan applied to it), before anything is posted. */
  copy(): LockedBalances {
    return new LockedBalances(new Map(this.balances));
  }

  /**
   * From now on, what is posted on these balances writes no balance event until
   * `LedgerRepository.publishBalanceEvents`: one per shop and currency for the whole database
   * transaction, with the figures after it (decision 339).
   */
  collectBalanceEvents(): this {
    this.collected ??= [];
    return this;
  }

  /** Records what was posted when events are collected; false when the caller must tell it at once. */
  collect(posted: readonly TransactionToPost[]): boolean {
    if (!this.collected) return false;
    this.collected.push(...posted);
    return true;
  }

  /** What was collected since `collectBalanceEvents`, in posting order; the collection starts afresh. */
  takeCollected(): TransactionToPost[] {
    const taken = this.collected ?? [];
    if (this.collected) this.collected = [];
    return taken;
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
   * Locks the accounts in key order (so two transactions never wait for each other in a cycle),
   * opening first those that do not exist yet; answers their balances. With every shop account
   * come the shop's available, pending, reserved and receivable of its currency, which its balance
   * event carries (decisions 313, 348). Nearly always every account exists: one statement, the
   * lock. That statement locks nothing unless all of them exist: a transaction holding some while
   * it opened the rest could wait for another that opened one of those and waits in turn for what
   * the first holds (a cycle). When one is missing, it opens it holding no account, then locks all.
   */
  async lock(m: EntityManager, refs: readonly AccountRef[]): Promise<LockedBalances> {
    const unique = new Map(withMerchantBalances(refs).map((r) => [accountKey(r), r]));
    const rows = [...unique.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const keys = rows.map(([k]) => k);
    const lockAll = (onlyIfAll: boolean): Promise<{ key: string; balance: string }[]> =>
      m.query(
        `SELECT key, balance::text FROM "${this.s}".accounts WHERE key = ANY($1::text[])${
          onlyIfAll
            ? ` AND (SELECT count(*) FROM "${this.s}".accounts WHERE key = ANY($1::text[])) = cardinality($1::text[])`
            : ''
        } ORDER BY key FOR UPDATE`,
        [keys],
      );
    let locked = await lockAll(true);
    if (locked.length < rows.length) {
      // Nothing is locked here: the ones that exist (or were opened meanwhile) are left as they are.
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
      locked = await lockAll(false);
    }
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
    return (await this.postMany(m, [{ tx, postings }], books)).has(tx.id);
  }

  /**
   * Posts a transaction whose key must be new: a hold's phase, whose row moves with it. A key
   * booked already (a key of two generations alike, decision 355) would move the row without its
   * money, so it fails the caller's transaction instead.
   */
  async postNew(m: EntityManager, tx: NewTransaction, postings: readonly Posting[], books: LockedBalances) {
    if (!(await this.post(m, tx, postings, books)))
      throw new Error(`${tx.idempotencyKey} is booked already: the hold would move without its postings`);
  }

  /**
   * Posts several transactions in a constant number of statements (decision 340), as `post` would
   * one after the other in their order: one multi-row insert of their rows (in order, ON CONFLICT
   * DO NOTHING: one already there, or a second of the same key or order in the list, posts
   * nothing), one insert of the postings of those that were new, one update per account of the
   * sum of its postings, and their balance events: one per shop and currency with the figures
   * after all of them (decision 339), written now or, when `books` collect them, by
   * `publishBalanceEvents`. Answers the ids of those that posted.
   *
   * The caller decides every transaction before any is posted: that is `post`'s order only where
   * no decision depends on a balance a transaction before it in the list moves, or where it was
   * planned on `books.copy()` and each transaction can only be new (see the callers).
   */
  async postMany(m: EntityManager, items: readonly TransactionToPost[], books: LockedBalances): Promise<Set<string>> {
    if (items.length === 0) return new Set();
    const txs = items.map((i) => i.tx);
    const col = <T>(f: (t: NewTransaction) => T) => txs.map(f);
    const inserted: { id: string }[] = await m.query(
      `INSERT INTO "${this.s}".transactions (id, idempotency_key, kind, status, shop_id, source_type, source_id, provider,
         operation_currency, gross, fee, net, balance_currency, balance_amount, rate, rate_source, rate_valid_from,
         created_at, available_on, settled_credits)
       SELECT id, idempotency_key, kind, status, shop_id, source_type, source_id, provider, operation_currency, gross,
              fee, net, balance_currency, balance_amount, rate, rate_source, rate_valid_from, created_at, available_on,
              string_to_array(settled_credits, ',')::uuid[]
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::uuid[], $6::text[], $7::text[], $8::text[],
                     $9::text[], $10::numeric[], $11::numeric[], $12::numeric[], $13::text[], $14::numeric[],
                     $15::numeric[], $16::text[], $17::timestamptz[], $18::timestamptz[], $19::timestamptz[],
                     $20::text[])
              WITH ORDINALITY AS t(id, idempotency_key, kind, status, shop_id, source_type, source_id, provider,
                operation_currency, gross, fee, net, balance_currency, balance_amount, rate, rate_source,
                rate_valid_from, created_at, available_on, settled_credits, ord)
        ORDER BY ord
       ON CONFLICT DO NOTHING RETURNING id::text`,
      [
        col((t) => t.id),
        col((t) => t.idempotencyKey),
        col((t) => t.kind),
        col((t) => t.status ?? 'posted'),
        col((t) => t.shopId),
        col((t) => t.sourceType),
        col((t) => t.sourceId),
        col((t) => t.provider),
        col((t) => t.operationCurrency),
        col((t) => t.gross.toFixed()),
        col((t) => t.fee.toFixed()),
        col((t) => t.net.toFixed()),
        col((t) => t.balanceCurrency),
        col((t) => t.balanceAmount.toFixed()),
        col((t) => t.rate?.rate.toFixed() ?? null),
        col((t) => t.rate?.source ?? null),
        col((t) => t.rate?.validFrom ?? null),
        col((t) => t.createdAt),
        col((t) => t.availableOn ?? null),
        // unnest flattens an array of arrays: each settlement's list travels as one comma-joined text
        col((t) => t.settledCredits?.join(',') ?? null),
      ],
    );
    const ids = new Set(inserted.map((r) => r.id.toLowerCase()));
    const posted = items.filter((i) => ids.has(i.tx.id.toLowerCase()));
    if (posted.length === 0) return new Set();
    const rows = posted.flatMap(({ tx, postings }) => postings.map((p) => ({ tx, p })));
    await m.query(
      `INSERT INTO "${this.s}".postings (transaction_id, account_key, currency, amount, created_at)
       SELECT p.t, p.k, a.currency, p.v, p.c FROM unnest($1::uuid[], $2::text[], $3::numeric[], $4::timestamptz[]) AS p(t, k, v, c)
       JOIN "${this.s}".accounts a ON a.key = p.k`,
      [
        rows.map((r) => r.tx.id),
        rows.map((r) => accountKey(r.p.account)),
        rows.map((r) => r.p.amount.toFixed()),
        rows.map((r) => r.tx.createdAt),
      ],
    );
    // One update per account: the sum of its postings (every posting was decided on the running balances).
    const sums = new Map<string, Amount>();
    for (const { p } of rows) {
      const k = accountKey(p.account);
      sums.set(k, (sums.get(k) ?? ZERO).plus(p.amount));
    }
    const moved = [...sums].filter(([, v]) => !v.isZero());
    if (moved.length > 0)
      await m.query(
        `UPDATE "${this.s}".accounts a SET balance = a.balance + p.v
         FROM unnest($1::text[], $2::numeric[]) AS p(k, v) WHERE a.key = p.k`,
        [moved.map(([k]) => k), moved.map(([, v]) => v.toFixed())],
      );
    for (const { postings } of posted) books.apply(postings);
    if (!books.collect(posted)) await this.outbox.add(m, balanceChangedItems(posted, books));
    return new Set(posted.map((i) => i.tx.id));
  }

  /** Writes the balance events `books` collected (`collectBalanceEvents`): one per shop and currency (decision 339). */
  async publishBalanceEvents(m: EntityManager, books: LockedBalances): Promise<void> {
    await this.outbox.add(m, balanceChangedItems(books.takeCollected(), books));
  }

  /** Which of `sourceIds` already have a transaction of `kind` (one statement). */
  async existingSources(m: EntityManager, kind: TransactionKind, sourceIds: readonly string[]): Promise<Set<string>> {
    const rows: { source_id: string }[] = await m.query(
      `SELECT source_id FROM "${this.s}".transactions WHERE kind = $1 AND source_id = ANY($2::text[])`,
      [kind, sourceIds],
    );
    return new Set(rows.map((r) => r.source_id));
  }

  /**
   * The settlement delays of the shops that set one, in one statement: answers a lookup by shop id
   * in any case (PostgreSQL answers a uuid lowercased; an event may name the shop in capitals).
   */
  async settlementDelays(
    m: EntityManager,
    shopIds: readonly string[],
  ): Promise<(shopId: string) => number | undefined> {
    const rows: { shop_id: string; settlement_delay_seconds: number }[] = await m.query(
      `SELECT shop_id::text, settlement_delay_seconds FROM "${this.s}".shop_settings WHERE shop_id = ANY($1::uuid[])`,
      [shopIds],
    );
    const delays = new Map(rows.map((r) => [r.shop_id.toLowerCase(), r.settlement_delay_seconds]));
    return (shopId) => delays.get(shopId.toLowerCase());
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
   * `feeSchedule` for every (shop, method, currency) a batch needs, in one statement (decision 340):
   * answers a lookup with the same rule, the method's own row, else the shop's `*` row, else none.
   */
  async feeSchedules(
    m: EntityManager,
    wanted: readonly { shopId: string; method: string | null; currency: string }[],
  ): Promise<(shopId: string, method: string | null, currency: string) => FeeSchedule> {
    const key = (shopId: string, method: string, currency: string) => `${shopId.toLowerCase()}|${method}|${currency}`;
    const rows: {
      shop_id: string;
      method: string;
      currency: string;
      percent: string;
      fixed: string;
      minimum: string;
    }[] =
      wanted.length === 0
        ? []
        : await m.query(
            `SELECT DISTINCT f.shop_id::text, f.method, f.currency, f.percent::text, f.fixed::text, f.minimum::text
               FROM "${this.s}".fee_schedules f
               JOIN unnest($1::uuid[], $2::text[], $3::text[]) AS w(shop_id, method, currency)
                 ON f.shop_id = w.shop_id AND f.currency = w.currency AND f.method IN (w.method, '*')`,
            [wanted.map((w) => w.shopId), wanted.map((w) => w.method ?? '*'), wanted.map((w) => w.currency)],
          );
    const found = new Map<string, FeeSchedule>(
      rows.map((r) => [
        key(r.shop_id, r.method, r.currency),
        { percent: amountOf(r.percent), fixed: amountOf(r.fixed), minimum: amountOf(r.minimum) },
      ]),
    );
    return (shopId, method, currency) =>
      found.get(key(shopId, method ?? '*', currency)) ?? found.get(key(shopId, '*', currency)) ?? NO_FEE;
  }

  /** `rateInForce` for each asked pair and time, in one statement (decision 340); answers in the order asked. */
  async ratesInForce(
    m: EntityManager,
    asked: readonly { base: string; quote: string; at: Date }[],
  ): Promise<(RateInForce | null)[]> {
    if (asked.length === 0) return [];
    const rows: { ord: string; rate: string | null; source: string | null; valid_from: Date | null }[] = await m.query(
      `SELECT q.ord::text, r.rate::text, r.source, r.valid_from
         FROM unnest($1::text[], $2::text[], $3::timestamptz[]) WITH ORDINALITY AS q(base, quote, at, ord)
         LEFT JOIN LATERAL (SELECT rate, source, valid_from FROM "${this.s}".rates
                             WHERE base = q.base AND quote = q.quote AND valid_from <= q.at
                               AND (valid_to IS NULL OR valid_to > q.at)
                             ORDER BY source = $4, valid_from DESC, id DESC LIMIT 1) r ON true`,
      [asked.map((a) => a.base), asked.map((a) => a.quote), asked.map((a) => a.at), SANDBOX_FEED_SOURCE],
    );
    const byOrd = new Map(rows.map((r) => [Number(r.ord), r]));
    return asked.map((_, i) => {
      const r = byOrd.get(i + 1);
      return r?.rate ? { rate: amountOf(r.rate), source: r.source!, validFrom: r.valid_from! } : null;
    });
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

  /** `scheduleSettlement` for several credits in one statement (decision 340). */
  async scheduleSettlements(
    m: EntityManager,
    credits: readonly { transactionId: string; shopId: string; currency: string; amount: Amount; availableOn: Date }[],
  ): Promise<void> {
    if (credits.length === 0) return;
    await m.query(
      `INSERT INTO "${this.s}".pending_settlements (transaction_id, shop_id, currency, amount, available_on)
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::numeric[], $5::timestamptz[])`,
      [
        credits.map((c) => c.transactionId),
        credits.map((c) => c.shopId),
        credits.map((c) => c.currency),
        credits.map((c) => c.amount.toFixed()),
        credits.map((c) => c.availableOn),
      ],
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
