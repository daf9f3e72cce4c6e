import { randomUUID } from 'node:crypto';
import { AssignerProtocol, Producer } from 'kafkajs';
import { Client } from 'pg';
import {
  BalanceTransactionPage,
  BalanceView,
  dlqTopic,
  Envelope,
  LedgerCommandTypes,
  OrderStatusChanged,
  serviceCommandTopics,
  Topics,
} from '@payments/contracts';
import { KafkaRequestClient } from '@payments/messaging';
import { eventually, testKafka, TopicReader } from '@payments/testing';
import { checkBooks } from '@payments/ledger-domain';
import { orderStatusChange, startTwoLedgers, TwoLedgers } from './two-ledgers.spec-support';

/**
 * The ledger against real Kafka and PostgreSQL, two instances in one consumer group: order
 * completions and refunds booked once whatever the redelivery, across currencies with a rate or
 * into suspense without one, and the settlement sweep shared by both instances.
 */
describe('ledger: orders.events booked, settled by two instances', () => {
  let two: TwoLedgers;
  let prefix: string;
  let producer: Producer;
  let reader: TopicReader;
  let pg: Client;
  let gateway: KafkaRequestClient;

  beforeAll(async () => {
    two = await startTwoLedgers({
      name: 'ldg',
      requester: 'gateway',
      env: { LEDGER_SETTLEMENT_SWEEP_MS: '100', LEDGER_SETTLEMENT_BATCH: '3' },
    });
    ({ prefix, producer, pg, requester: gateway } = two);
    reader = await TopicReader.start([prefix + dlqTopic(Topics.ordersEvents)]);
  });

  afterAll(async () => {
    await reader?.stop();
    await two?.stop();
  });

  const send = (messages: Envelope[]) =>
    producer.send({
      topic: prefix + Topics.ordersEvents,
      messages: messages.map((e) => ({ key: (e.payload as OrderStatusChanged).orderId, value: JSON.stringify(e) })),
    });

  const change = orderStatusChange;

  const balances = async (shopId: string): Promise<Record<string, string>> => {
    const { rows } = await pg.query<{ kind: string; currency: string; balance: string }>(
      `SELECT kind, currency, balance::text FROM ledger.accounts WHERE shop_id = $1 AND balance <> 0`,
      [shopId],
    );
    return Object.fromEntries(rows.map((r) => [`${r.kind}:${r.currency}`, String(Number(r.balance))]));
  };
  const settingsFor = (shopId: string, delayS: number) =>
    pg.query(`INSERT INTO ledger.shop_settings (shop_id, settlement_delay_seconds) VALUES ($1, $2)`, [shopId, delayS]);
  const transactionsOf = async (sourceId: string) =>
    (await pg.query(`SELECT * FROM ledger.transactions WHERE source_id = $1 ORDER BY created_at`, [sourceId])).rows;

  it('when a completion is delivered three times, then it is booked once: clearing, fee and pending net of the fee', async () => {
    const shop = randomUUID();
    const order = randomUUID();
    await settingsFor(shop, 3600);
    await pg.query(
      `INSERT INTO ledger.fee_schedules (shop_id, method, currency, percent, fixed, minimum) VALUES ($1, 'card', 'USD', 2.5, 0.30, 1)`,
      [shop],
    );
    const completed = change(shop, order);
    await send([completed, completed]);
    await send([completed]);
    await eventually(async () => ((await transactionsOf(order)).length === 1 ? true : undefined));
    // A later event of the same order that moves no money is let through without a posting.
    await send([change(shop, order, { status: 'completed', previousStatus: 'completed', sequence: 4 })]);
    await new Promise((r) => setTimeout(r, 1000));
    const [tx] = await transactionsOf(order);
    expect(await transactionsOf(order)).toHaveLength(1);
    expect([tx.gross, tx.fee, tx.net, tx.balance_currency]).toEqual([
      '100.000000000000000000',
      '2.800000000000000000',
      '97.200000000000000000',
      'USD',
    ]);
    expect(await balances(shop)).toEqual({ 'pending:USD': '97.2' });
    const { rows } = await pg.query(
      `SELECT key, balance::text FROM ledger.accounts WHERE key IN ('clearing:sandbox:USD', 'fee_revenue:USD')`,
    );
    expect(Object.fromEntries(rows.map((r) => [r.key, Number(r.balance)]))).toMatchObject({
      'clearing:sandbox:USD': expect.any(Number),
      'fee_revenue:USD': expect.any(Number),
    });
  });

  it('when the balance is USDT TRC20, then the net converts at the rate in force, recorded; without a rate it waits in suspense', async () => {
    const shop = randomUUID();
    await settingsFor(shop, 3600);
    await pg.query(
      `INSERT INTO ledger.rates (base, quote, rate, source, valid_from) VALUES ('USD', 'USDT-TRC20', 0.998, 'sandbox-feed', now() - interval '1 hour')`,
    );
    const converted = randomUUID();
    const waiting = randomUUID();
    await send([
      change(shop, converted, { merchantBalance: { currency: 'USDT', tokenStandard: 'TRC20' } }),
      change(shop, waiting, { cost: { amount: '10.00', currency: 'EUR' }, merchantBalance: { currency: 'USDT_TRON' } }),
    ]);
    await eventually(async () => ((await transactionsOf(waiting)).length === 1 ? true : undefined));
    const [tx] = await eventually(async () =>
      (await transactionsOf(converted)).length ? transactionsOf(converted) : undefined,
    );
    expect([tx.status, tx.rate, tx.rate_source, tx.balance_amount]).toEqual([
      'posted',
      '0.998000000000000000',
      'sandbox-feed',
      '99.800000000000000000',
    ]);
    expect((await transactionsOf(waiting))[0].status).toBe('awaiting_rate');
    expect(await balances(shop)).toEqual({ 'pending:USDT-TRC20': '99.8', 'suspense:EUR': '10' });
  });

  it('when a refund comes, then it debits pending at the original rate, once', async () => {
    const shop = randomUUID();
    const order = randomUUID();
    await settingsFor(shop, 3600);
    const completed = change(shop, order);
    const refund = change(shop, order, {
      status: 'partially_refunded',
      previousStatus: 'completed',
      sequence: 4,
      refund: { refundId: randomUUID(), amount: '30.00' },
      provider: undefined,
    });
    await send([completed, refund, refund]);
    await eventually(async () => ((await transactionsOf(order)).length === 2 ? true : undefined));
    await new Promise((r) => setTimeout(r, 500));
    expect((await transactionsOf(order)).map((t) => [t.kind, t.provider])).toEqual([
      ['order_completed', 'sandbox'],
      ['order_refunded', 'sandbox'],
    ]);
    expect(await balances(shop)).toEqual({ 'pending:USD': '70' });
  });

  it('when the fee exceeds the amount, then the event is dead-lettered with the reason and nothing is posted', async () => {
    const shop = randomUUID();
    const order = randomUUID();
    await pg.query(`INSERT INTO ledger.fee_schedules (shop_id, method, currency, fixed) VALUES ($1, '*', 'USD', 5)`, [
      shop,
    ]);
    const bad = change(shop, order, { cost: { amount: '1.00', currency: 'USD' } });
    await send([bad]);
    const [dead] = await reader.waitFor(1, (m) => (m.value ?? '').includes(order), 30000);
    expect(JSON.stringify(dead.headers)).toContain('the fee 5 USD exceeds the amount 1 USD');
    expect(await transactionsOf(order)).toHaveLength(0);
    expect(await balances(shop)).toEqual({});
  });

  it('when twenty credits are due, then the two instances settle each once: pending to available', async () => {
    const shop = randomUUID();
    await settingsFor(shop, 0);
    const orders = Array.from({ length: 20 }, () => randomUUID());
    await send(orders.map((o) => change(shop, o, { cost: { amount: '5.00', currency: 'USD' } })));
    const final = await eventually(async () => {
      const b = await balances(shop);
      return b['available:USD'] === '100' ? b : undefined;
    }, 30000);
    expect(final).toEqual({ 'available:USD': '100' });
    // A sweep settles the credits it takes of a shop as one transaction (decision 351): each credit is
    // in exactly one settlement's list, and the settlements move the twenty credits' 100 between them.
    const credits = await pg.query<{ id: string }>(
      `SELECT id::text FROM ledger.transactions WHERE kind = 'order_completed' AND shop_id = $1`,
      [shop],
    );
    const settled = await pg.query<{ credit: string; times: number }>(
      `SELECT c::text AS credit, count(*)::int AS times FROM ledger.transactions t, unnest(t.settled_credits) c
        WHERE t.kind = 'settlement' AND t.shop_id = $1 GROUP BY c`,
      [shop],
    );
    expect(settled.rows.map((r) => r.credit).sort()).toEqual(credits.rows.map((r) => r.id).sort());
    expect(settled.rows.filter((r) => r.times !== 1)).toEqual([]);
    const { rows } = await pg.query(
      `SELECT count(*)::int AS n, sum(balance_amount)::float8 AS moved, bool_and(source_id = id::text) AS own_source
         FROM ledger.transactions WHERE kind = 'settlement' AND shop_id = $1`,
      [shop],
    );
    expect(rows[0]).toMatchObject({ moved: 100, own_source: true });
    expect(rows[0].n).toBeLessThanOrEqual(20);
  });

  it('when anyone updates or deletes a posting, or posts an unbalanced one, then the database refuses', async () => {
    await expect(pg.query(`UPDATE ledger.postings SET amount = amount * 2`)).rejects.toThrow(/append-only/);
    await expect(pg.query(`DELETE FROM ledger.postings`)).rejects.toThrow(/append-only/);
    const { rows } = await pg.query(`SELECT transaction_id, account_key FROM ledger.postings LIMIT 1`);
    await expect(
      pg.query(
        `INSERT INTO ledger.postings (transaction_id, account_key, currency, amount) VALUES ($1, $2, 'USD', 1)`,
        [rows[0].transaction_id, rows[0].account_key],
      ),
    ).rejects.toThrow(/sum to/);
    await expect(pg.query(`UPDATE ledger.accounts SET balance = -1 WHERE kind = 'available'`)).rejects.toThrow(
      /accounts_never_negative/,
    );
  });

  it('when the gateway asks for a balance and its statement, then it gets them per currency, paged newest first', async () => {
    const shop = randomUUID();
    await settingsFor(shop, 3600);
    const orders = [randomUUID(), randomUUID(), randomUUID()];
    for (const o of orders) await send([change(shop, o, { cost: { amount: '10.00', currency: 'USD' } })]);
    await eventually(async () => ((await balances(shop))['pending:USD'] === '30' ? true : undefined));
    const balance = await gateway.request<BalanceView>(Topics.ledgerCommands, shop, LedgerCommandTypes.getBalance, {
      shopId: shop,
    });
    expect(balance).toEqual({
      ok: true,
      result: {
        shopId: shop,
        balances: [{ currency: 'USD', available: '0', pending: '30', reserved: '0', owed: '0' }],
      },
    });
    const read = (cursor?: string) =>
      gateway.request<BalanceTransactionPage>(Topics.ledgerCommands, shop, LedgerCommandTypes.listTransactions, {
        shopId: shop,
        limit: 2,
        ...(cursor ? { cursor } : {}),
      });
    const first = await read();
    if (!first.ok) throw new Error(first.error.detail);
    expect(first.result.items).toHaveLength(2);
    expect(first.result.items[0]).toMatchObject({
      kind: 'order_completed',
      source: { type: 'order', id: orders[2] },
      gross: '10',
      fee: '0',
      net: '10',
      amount: '10',
      currency: 'USD',
      availableOn: expect.any(String),
    });
    const second = await read(first.result.nextCursor!);
    expect(second).toMatchObject({ ok: true, result: { items: [{ source: { id: orders[0] } }], nextCursor: null } });
    expect(await read('bm90LWEtY3Vyc29y')).toMatchObject({ ok: false, error: { code: 'invalid' } });
  });

  it('when two instances run, then commands and events are two consumer groups, each with both instances', async () => {
    // Decision 352: the commands a request waits on are fetched at once; the events it books, in
    // a group of their own whose fetch waits for more. Asked of the broker, not of the code.
    const admin = testKafka('ldg-groups').admin();
    await admin.connect();
    try {
      const { groups } = await admin.describeGroups([`${prefix}ledger`, `${prefix}ledger-events`]);
      const subscriptions = groups.map((g) => ({
        group: g.groupId.slice(prefix.length),
        state: g.state,
        members: g.members.map((m) =>
          AssignerProtocol.MemberMetadata.decode(m.memberMetadata)!
            .topics.map((t) => t.slice(prefix.length))
            .sort(),
        ),
      }));
      const commands = [Topics.ledgerCommands, ...serviceCommandTopics('ledger')].sort();
      const events = [Topics.ordersEvents, Topics.p2pEvents, Topics.payoutsEvents].sort();
      expect(subscriptions).toEqual([
        { group: 'ledger', state: 'Stable', members: [commands, commands] },
        { group: 'ledger-events', state: 'Stable', members: [events, events] },
      ]);
    } finally {
      await admin.disconnect();
    }
    // Each consumer is a health component of its own: one would replace the other's.
    const health = (await (await fetch(`http://127.0.0.1:${two.ledgers[0].port}/health/ready`)).json()) as {
      details: Record<string, { status: string }>;
    };
    expect(Object.keys(health.details)).toEqual(
      expect.arrayContaining([
        'kafka-consumer',
        'kafka-consumer:events',
        'kafka-producer:dead-letters',
        'kafka-producer:dead-letters:events',
      ]),
    );
  });

  it('when everything above is booked, then the books hold: balanced, balances equal postings, none below zero', async () => {
    expect(await checkBooks(async (sql, params) => (await pg.query(sql, params)).rows, 'ledger')).toEqual([]);
    // and the check finds a balance that no longer matches its postings
    await pg.query(`UPDATE ledger.accounts SET balance = balance + 1 WHERE key = 'fee_revenue:USD'`);
    expect(await checkBooks(async (sql, params) => (await pg.query(sql, params)).rows, 'ledger')).toEqual([
      { check: 'balance_differs_from_postings', subject: 'account fee_revenue:USD', detail: expect.any(String) },
    ]);
  });
});
