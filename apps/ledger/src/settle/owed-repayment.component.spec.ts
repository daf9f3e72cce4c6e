import { randomUUID } from 'node:crypto';
import {
  BalanceChanged,
  BalanceTransactionPage,
  BalanceView,
  envelope,
  Envelope,
  LedgerCommandTypes,
  P2pStatusChanged,
  Topics,
} from '@payments/contracts';
import { checkBooks } from '@payments/ledger-domain';
import { eventually, TopicReader } from '@payments/testing';
import { orderStatusChange, startTwoLedgers, TwoLedgers } from '../two-ledgers.spec-support';
import { SettlementSweeper } from './settlement.sweeper';

/**
 * Decision 348 against real Kafka and PostgreSQL, two ledger instances: a credit that settles
 * into the available balance of a shop that owes (a P2P fee its available could not cover) pays
 * what it owes first, in the settlement's own transaction; the rest goes to available. Sweeps are
 * driven by the spec on both instances at once (the interval is an hour), so they race as two
 * replicas do; a redelivered credit or a second sweep posts nothing again. Every step that moves
 * what the shop owes is a balance event carrying `owed`, a P2P fee wholly owed included.
 */
describe('ledger: a settlement pays what the shop owes first', () => {
  let two: TwoLedgers;
  let reader: TopicReader;

  beforeAll(async () => {
    two = await startTwoLedgers({
      name: 'owed',
      requester: 'gateway',
      env: { LEDGER_SETTLEMENT_SWEEP_MS: '3600000', LEDGER_SETTLEMENT_BATCH: '2' },
    });
    reader = await TopicReader.start([two.prefix + Topics.ledgerEvents]);
  });

  afterAll(async () => {
    await reader?.stop();
    await two?.stop();
  });

  /** Both instances sweep at once, until neither finds a credit due; answers how many they settled. */
  const sweepBoth = async () => {
    let total = 0;
    for (;;) {
      const settled = await Promise.all(two.ledgers.map((l) => l.app.get(SettlementSweeper).sweep()));
      const n = settled.reduce((a, b) => a + b, 0);
      total += n;
      if (n === 0) return total;
    }
  };
  const send = (topic: string, key: string, messages: Envelope[]) =>
    two.producer.send({
      topic: two.prefix + topic,
      messages: messages.map((e) => ({ key, value: JSON.stringify(e) })),
    });
  /** A shop that settles at once, charged a fixed P2P fee in USD and nothing for cards. */
  const aShop = async (p2pFee: string) => {
    const shop = randomUUID();
    await two.pg.query(`INSERT INTO ledger.shop_settings (shop_id, settlement_delay_seconds) VALUES ($1, 0)`, [shop]);
    await two.pg.query(
      `INSERT INTO ledger.fee_schedules (shop_id, method, currency, fixed) VALUES ($1, 'p2p', 'USD', $2)`,
      [shop, p2pFee],
    );
    return shop;
  };
  const p2pCompleted = (shopId: string) => {
    const p2pId = randomUUID();
    return envelope({
      type: 'p2p.status_changed',
      occurredAt: new Date(),
      payload: {
        p2pId,
        shopId,
        merchantP2pId: `p-${p2pId.slice(0, 8)}`,
        sequence: 3,
        status: 'completed',
        previousStatus: 'in_progress',
        cost: { amount: '200.00', currency: 'USD' },
      } satisfies P2pStatusChanged,
    });
  };
  const credit = (shopId: string, amount: string) =>
    orderStatusChange(shopId, randomUUID(), { cost: { amount, currency: 'USD' } });
  const accounts = async (shopId: string): Promise<Record<string, string>> => {
    const { rows } = await two.pg.query<{ kind: string; balance: string }>(
      `SELECT kind, balance::text FROM ledger.accounts WHERE shop_id = $1 AND currency = 'USD' AND balance <> 0`,
      [shopId],
    );
    return Object.fromEntries(rows.map((r) => [r.kind, String(Number(r.balance))]));
  };
  const ask = async <T>(type: string, payload: object): Promise<T> => {
    const read = await two.requester.request<T>(Topics.ledgerCommands, randomUUID(), type, payload);
    if (!read.ok) throw new Error(read.error.detail);
    return read.result;
  };
  const balanceOf = async (shopId: string) =>
    (await ask<BalanceView>(LedgerCommandTypes.getBalance, { shopId })).balances;
  const statementOf = async (shopId: string) =>
    (await ask<BalanceTransactionPage>(LedgerCommandTypes.listTransactions, { shopId, limit: 100 })).items;
  const eventsOf = (shopId: string) =>
    reader
      .on(two.prefix + Topics.ledgerEvents)
      .filter((m) => m.key === shopId)
      .map((m) => (m.json as Envelope<BalanceChanged>).payload);
  const figures = (e: BalanceChanged) => [e.transaction.kind, e.available, e.pending, e.owed];
  const booksAreSound = async () =>
    expect(await checkBooks(async (sql, params) => (await two.pg.query(sql, params)).rows, 'ledger')).toEqual([]);
  const settlementsOf = async (shopId: string) =>
    (
      await two.pg.query<{
        idempotency_key: string;
        own_source: boolean;
        settled_credits: string[];
        postings: Record<string, string>;
      }>(
        `SELECT t.idempotency_key, t.source_type = 'settlement' AND t.source_id = t.id::text AS own_source,
                t.settled_credits::text[] AS settled_credits,
                jsonb_object_agg(split_part(p.account_key, ':', 3), (p.amount::float8)::text) AS postings
           FROM ledger.transactions t JOIN ledger.postings p ON p.transaction_id = t.id
          WHERE t.shop_id = $1 AND t.kind = 'settlement' GROUP BY t.id ORDER BY t.created_at, t.id`,
        [shopId],
      )
    ).rows;

  it('when a shop owing 3.50 has a credit of 100 settle, then 3.50 repays the debt and 96.50 is available, once', async () => {
    const shop = await aShop('3.50');
    // A P2P fee with nothing available: all of it owed. It moves only the receivable, and is told.
    await send(Topics.p2pEvents, shop, [p2pCompleted(shop)]);
    await eventually(async () => ((await accounts(shop)).receivable === '-3.5' ? true : undefined), 20_000);
    await eventually(async () => (eventsOf(shop).length >= 1 ? true : undefined), 20_000, 'the fee told');

    const order = credit(shop, '100.00');
    const orderId = (order.payload as { orderId: string }).orderId;
    // Redelivered: credited once, so settled once.
    await send(Topics.ordersEvents, orderId, [order, order]);
    await eventually(async () => ((await accounts(shop)).pending === '100' ? true : undefined), 20_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(await sweepBoth()).toBeGreaterThanOrEqual(1);
    // A second sweep on either instance finds nothing due: the queue row went with the first.
    expect(await sweepBoth()).toBe(0);

    expect(await accounts(shop)).toEqual({ available: '96.5' });
    expect(await balanceOf(shop)).toEqual([
      { currency: 'USD', available: '96.5', pending: '0', reserved: '0', owed: '0' },
    ]);
    const [creditTx] = (
      await two.pg.query(`SELECT id::text FROM ledger.transactions WHERE source_id = $1 AND kind = 'order_completed'`, [
        orderId,
      ])
    ).rows;
    expect(await settlementsOf(shop)).toEqual([
      {
        idempotency_key: `settlement:${creditTx.id}`,
        own_source: true,
        settled_credits: [creditTx.id],
        postings: { pending: '-100', receivable: '3.5', available: '96.5' },
      },
    ]);
    // The statement shows the settlement of 100, of which 3.50 repaid what was owed.
    const statement = await statementOf(shop);
    expect(statement.map((t) => [t.kind, t.amount, t.repaid, t.credits])).toEqual([
      ['settlement', '100', '3.5', 1],
      ['order_completed', '100', undefined, undefined],
      ['p2p_fee', '-3.5', undefined, undefined],
    ]);
    await eventually(async () => (eventsOf(shop).length >= 3 ? true : undefined), 20_000, 'three events');
    await new Promise((r) => setTimeout(r, 500));
    expect(eventsOf(shop).map(figures)).toEqual([
      ['p2p_fee', '0', '0', '3.5'],
      ['order_completed', '0', '100', '3.5'],
      ['settlement', '96.5', '0', '0'],
    ]);
    await booksAreSound();
  });

  it('when a credit smaller than the debt settles, then available stays at 0 and the rest stays owed until the next one', async () => {
    const shop = await aShop('5');
    await send(Topics.p2pEvents, shop, [p2pCompleted(shop)]);
    await eventually(async () => ((await accounts(shop)).receivable === '-5' ? true : undefined), 20_000);
    await send(Topics.ordersEvents, shop, [credit(shop, '2.00')]);
    await eventually(async () => ((await accounts(shop)).pending === '2' ? true : undefined), 20_000);
    await sweepBoth();
    expect(await accounts(shop)).toEqual({ receivable: '-3' });
    expect(await balanceOf(shop)).toEqual([
      { currency: 'USD', available: '0', pending: '0', reserved: '0', owed: '3' },
    ]);

    await send(Topics.ordersEvents, shop, [credit(shop, '10.00')]);
    await eventually(async () => ((await accounts(shop)).pending === '10' ? true : undefined), 20_000);
    await sweepBoth();
    expect(await balanceOf(shop)).toEqual([
      { currency: 'USD', available: '7', pending: '0', reserved: '0', owed: '0' },
    ]);
    expect((await settlementsOf(shop)).map((s) => s.postings)).toEqual([
      { pending: '-2', receivable: '2' },
      { pending: '-10', receivable: '3', available: '7' },
    ]);
    expect((await statementOf(shop)).filter((t) => t.kind === 'settlement').map((t) => [t.amount, t.repaid])).toEqual([
      ['10', '3'],
      ['2', '2'],
    ]);
    await eventually(async () => (eventsOf(shop).length >= 5 ? true : undefined), 20_000, 'five events');
    // A settlement that only repays still moves pending and owed: it is told, owed going down.
    expect(eventsOf(shop).map(figures)).toEqual([
      ['p2p_fee', '0', '0', '5'],
      ['order_completed', '0', '2', '5'],
      ['settlement', '0', '0', '3'],
      ['order_completed', '0', '10', '3'],
      ['settlement', '7', '0', '0'],
    ]);
    await booksAreSound();
  });

  it('when several credits of a shop that owes settle in batches on both instances at once, then together they repay exactly the debt', async () => {
    const shop = await aShop('2.25');
    await send(Topics.p2pEvents, shop, [p2pCompleted(shop)]);
    await eventually(async () => ((await accounts(shop)).receivable === '-2.25' ? true : undefined), 20_000);
    await send(
      Topics.ordersEvents,
      shop,
      Array.from({ length: 5 }, () => credit(shop, '1.00')),
    );
    await eventually(async () => ((await accounts(shop)).pending === '5' ? true : undefined), 20_000);
    // Batches of two, taken with SKIP LOCKED by two instances racing: five credits, three or four batches,
    // each the one settlement of the credits it took (decision 351).
    expect(await sweepBoth()).toBe(5);
    expect(await accounts(shop)).toEqual({ available: '2.75' });
    const settlements = await settlementsOf(shop);
    expect(settlements.length).toBeGreaterThanOrEqual(3);
    expect(settlements.length).toBeLessThanOrEqual(4);
    const settled = settlements.flatMap((s) => s.settled_credits);
    expect(new Set(settled).size).toBe(5);
    expect(settled).toHaveLength(5);
    const repaid = settlements.reduce((sum, s) => sum + Number(s.postings.receivable ?? 0), 0);
    expect(repaid).toBe(2.25);
    // Never more than what was owed: the receivable never went above zero on the way.
    const { rows } = await two.pg.query(
      `SELECT max(running)::float8 AS highest FROM (
         SELECT sum(p.amount) OVER (ORDER BY p.id) AS running FROM ledger.postings p
          WHERE p.account_key = $1) r`,
      [`shop:${shop}:receivable:USD`],
    );
    expect(rows[0].highest).toBeLessThanOrEqual(0);
    await booksAreSound();
  });
  // Last in this file: what it writes is wrong on purpose, and the books stay wrong (append-only).
  it('when a credit appears in a second settlement, then the books report it settled twice; a settlement without its list is refused', async () => {
    const shop = await aShop('0');
    await send(Topics.ordersEvents, shop, [credit(shop, '4.00')]);
    await eventually(async () => ((await accounts(shop)).pending === '4' ? true : undefined), 20_000);
    await sweepBoth();
    const [{ credits }] = (await settlementsOf(shop)).map((x) => ({ credits: x.settled_credits }));
    const forge = (list: string[] | null) =>
      two.pg.query(
        `INSERT INTO ledger.transactions (id, idempotency_key, kind, shop_id, source_type, source_id, operation_currency,
           gross, net, balance_currency, balance_amount, created_at, settled_credits)
         SELECT id, 'forged:' || id, 'settlement', $1, 'settlement', id::text, 'USD', 0, 0, 'USD', 0, now(), $2::uuid[]
           FROM (SELECT gen_random_uuid() AS id) g`,
        [shop, list],
      );
    await expect(forge(null)).rejects.toThrow(/transactions_settled_credits/);
    await forge(credits);
    const findings = await checkBooks(async (sql, params) => (await two.pg.query(sql, params)).rows, 'ledger');
    expect(findings.map((f) => [f.check, f.subject])).toEqual([['credit_settled_twice', `credit ${credits[0]}`]]);
  });
});
