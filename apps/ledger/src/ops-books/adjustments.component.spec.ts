import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import {
  AdjustmentView,
  BalanceView,
  commandTopic,
  envelope,
  LedgerOpsCommandTypes,
  OperatorIdentity,
  P2pStatusChanged,
  ShopTransactionPage,
  Topics,
} from '@payments/contracts';
import { checkBooks } from '@payments/ledger-domain';
import { eventually } from '@payments/testing';
import { KafkaRequestClient } from '@payments/messaging';
import { startTwoLedgers, TwoLedgers } from '../two-ledgers.spec-support';

/**
 * Decision 308: an operator's manual adjustment credits or debits a shop's available balance
 * against the `adjustments` account, once per shop and idempotency key whichever of two instances
 * takes the retry; a debit available cannot cover is refused and changes nothing; operators read
 * the balance and the statement with who posted each adjustment and why (decision 309).
 */
describe('ledger: operators’ manual adjustments on ledger.ops-commands, two instances', () => {
  let two: TwoLedgers;
  let pg: Client;
  let backoffice: KafkaRequestClient;
  const ada: OperatorIdentity = { id: randomUUID(), name: 'Ada Admin', role: 'admin' };

  beforeAll(async () => {
    two = await startTwoLedgers({ name: 'adj', requester: 'backoffice', env: {} });
    ({ pg, requester: backoffice } = two);
  });

  afterAll(async () => {
    await two?.stop();
  });

  const ask = <T>(type: string, shopId: string, payload: object) =>
    backoffice.request<T>(commandTopic('ledger', 'operator'), shopId, type, { shopId, ...payload, operator: ada });
  const adjust = (shopId: string, amount: string, key: string = randomUUID(), over: object = {}) =>
    ask<AdjustmentView>(LedgerOpsCommandTypes.adjustBalance, shopId, {
      idempotencyKey: key,
      currency: 'USD',
      amount,
      reason: 'Goodwill credit, ticket 4411',
      ...over,
    });
  const accounts = async (shopId: string) => {
    const { rows } = await pg.query<{ key: string; balance: string }>(
      // The accounts something was posted to (locking opens a shop's available, pending and reserved
      // together, decision 313: those never posted to are not the adjustment's).
      `SELECT key, balance::text FROM ledger.accounts a
        WHERE shop_id = $1 AND EXISTS (SELECT 1 FROM ledger.postings p WHERE p.account_key = a.key) ORDER BY key`,
      [shopId],
    );
    return Object.fromEntries(rows.map((r) => [r.key.split(':').slice(2).join(':'), Number(r.balance)]));
  };
  const transactionsOf = async (shopId: string) =>
    (
      await pg.query<{ kind: string; balance_amount: string; source_type: string }>(
        `SELECT kind, balance_amount::text, source_type FROM ledger.transactions WHERE shop_id = $1 ORDER BY created_at`,
        [shopId],
      )
    ).rows;
  const booksSound = async () =>
    expect(await checkBooks(async (sql, params) => (await pg.query(sql, params)).rows, 'ledger')).toEqual([]);

  it('when an operator credits then debits a shop, then available moves by each against the adjustments account', async () => {
    const shop = randomUUID();
    const adjustmentsBefore = await pg.query(`SELECT balance::text FROM ledger.accounts WHERE key = 'adjustments:USD'`);
    const credit = await adjust(shop, '25.00');
    expect(credit).toMatchObject({
      ok: true,
      result: {
        shopId: shop,
        currency: 'USD',
        amount: '25',
        reason: 'Goodwill credit, ticket 4411',
        operator: { id: ada.id, name: 'Ada Admin' },
        availableAfter: '25',
        replayed: false,
      },
    });
    const debit = await adjust(shop, '-10.50');
    expect(debit).toMatchObject({ ok: true, result: { amount: '-10.5', availableAfter: '14.5' } });
    expect(await accounts(shop)).toEqual({ 'available:USD': 14.5 });
    expect(await transactionsOf(shop)).toEqual([
      { kind: 'manual_adjustment', balance_amount: '25.000000000000000000', source_type: 'adjustment' },
      { kind: 'manual_adjustment', balance_amount: '-10.500000000000000000', source_type: 'adjustment' },
    ]);
    const { rows } = await pg.query(`SELECT balance::text FROM ledger.accounts WHERE key = 'adjustments:USD'`);
    expect(Number(rows[0].balance) - Number(adjustmentsBefore.rows[0]?.balance ?? 0)).toBe(-14.5);
    await booksSound();

    const balance = await ask<BalanceView>(LedgerOpsCommandTypes.getShopBalance, shop, {});
    expect(balance).toEqual({
      ok: true,
      result: {
        shopId: shop,
        balances: [{ currency: 'USD', available: '14.5', pending: '0', reserved: '0', owed: '0' }],
      },
    });
    const statement = await ask<ShopTransactionPage>(LedgerOpsCommandTypes.listShopTransactions, shop, { limit: 10 });
    if (!statement.ok) throw new Error(statement.error.detail);
    expect(statement.result.items.map((t) => [t.kind, t.amount, t.gross, t.net, t.source.type])).toEqual([
      ['manual_adjustment', '-10.5', '10.5', '10.5', 'adjustment'],
      ['manual_adjustment', '25', '25', '25', 'adjustment'],
    ]);
    expect(statement.result.items[0].adjustment).toEqual({
      reason: 'Goodwill credit, ticket 4411',
      operator: { id: ada.id, name: 'Ada Admin' },
    });
  });

  it('when a shop that owes is credited by an operator, then all of the credit is available and the debt stays (decision 348)', async () => {
    const shop = randomUUID();
    await pg.query(`INSERT INTO ledger.fee_schedules (shop_id, method, currency, fixed) VALUES ($1, 'p2p', 'USD', 2)`, [
      shop,
    ]);
    const p2pId = randomUUID();
    // A P2P fee with nothing available: 2.00 owed.
    await two.producer.send({
      topic: two.prefix + Topics.p2pEvents,
      messages: [
        {
          key: p2pId,
          value: JSON.stringify(
            envelope({
              type: 'p2p.status_changed',
              occurredAt: new Date(),
              payload: {
                p2pId,
                shopId: shop,
                merchantP2pId: 'p-1',
                sequence: 3,
                status: 'completed',
                previousStatus: 'in_progress',
                cost: { amount: '50.00', currency: 'USD' },
              } satisfies P2pStatusChanged,
            }),
          ),
        },
      ],
    });
    await eventually(async () => ((await accounts(shop))['receivable:USD'] === -2 ? true : undefined), 20_000);
    // Only a settlement repays: the operator's credit is the amount typed, answered as availableAfter.
    expect(await adjust(shop, '25.00')).toMatchObject({ ok: true, result: { availableAfter: '25' } });
    expect(await accounts(shop)).toEqual({ 'available:USD': 25, 'receivable:USD': -2 });
    expect(await ask<BalanceView>(LedgerOpsCommandTypes.getShopBalance, shop, {})).toMatchObject({
      ok: true,
      result: { balances: [{ currency: 'USD', available: '25', pending: '0', reserved: '0', owed: '2' }] },
    });
    await booksSound();
  });

  it('when a debit is more than available, then it is refused naming amount with the balance, and nothing changes', async () => {
    const shop = randomUUID();
    expect((await adjust(shop, '20.00')).ok).toBe(true);
    const before = { accounts: await accounts(shop), transactions: await transactionsOf(shop) };
    const refused = await adjust(shop, '-20.01');
    expect(refused).toEqual({
      ok: false,
      error: {
        code: 'unprocessable',
        detail: 'amount: the available balance 20 USD cannot cover a debit of 20.01 USD; nothing was posted',
        errors: [{ path: 'amount', message: 'the available balance 20 USD cannot cover a debit of 20.01 USD' }],
        extensions: { available: '20', currency: 'USD' },
      },
    });
    // A debit in a currency the shop never had opens no account either.
    const never = await adjust(shop, '-1', randomUUID(), { currency: 'EUR' });
    expect(never).toMatchObject({ ok: false, error: { code: 'unprocessable', errors: [{ path: 'amount' }] } });
    expect({ accounts: await accounts(shop), transactions: await transactionsOf(shop) }).toEqual(before);
    // Exactly what is available is allowed: available is then zero, never below.
    expect(await adjust(shop, '-20')).toMatchObject({ ok: true, result: { availableAfter: '0' } });
    expect(await accounts(shop)).toEqual({ 'available:USD': 0 });
    await booksSound();
  });

  it('when the same key comes again, also at once on both instances, then it posts once and answers the first; with another amount it is refused', async () => {
    const shop = randomUUID();
    const key = `console:${randomUUID()}`;
    const [a, b] = await Promise.all([adjust(shop, '7.25', key), adjust(shop, '7.25', key)]);
    const again = await adjust(shop, '7.25', key);
    if (!a.ok || !b.ok || !again.ok) throw new Error('an adjustment was refused');
    expect(new Set([a.result.id, b.result.id, again.result.id]).size).toBe(1);
    expect([a.result.replayed, b.result.replayed].sort()).toEqual([false, true]);
    expect(again.result).toEqual({ ...(a.result.replayed ? b.result : a.result), replayed: true });
    expect(await transactionsOf(shop)).toHaveLength(1);
    expect(await accounts(shop)).toEqual({ 'available:USD': 7.25 });

    const other = await adjust(shop, '8', key);
    expect(other).toMatchObject({
      ok: false,
      error: { code: 'unprocessable', errors: [{ path: "headers['Idempotency-Key']" }] },
    });
    expect(await transactionsOf(shop)).toHaveLength(1);
  });

  it('when an operator who is no admin asks, then it is refused and nothing is posted', async () => {
    const shop = randomUUID();
    const r = await backoffice.request<AdjustmentView>(
      commandTopic('ledger', 'operator'),
      shop,
      LedgerOpsCommandTypes.adjustBalance,
      {
        shopId: shop,
        idempotencyKey: randomUUID(),
        currency: 'USD',
        amount: '100',
        reason: 'Free money',
        operator: { ...ada, role: 'operator' },
      },
    );
    expect(r).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(await transactionsOf(shop)).toEqual([]);
  });

  it.each([
    ['a zero amount', { amount: '0.00' }, 'amount'],
    ['cents below the minor unit', { amount: '1.001' }, 'amount'],
    ['an unknown currency', { currency: 'XYZ' }, 'currency'],
    ['a blank reason', { reason: '  ' }, 'reason'],
  ])('when %s is sent, then it is refused naming %s and nothing is posted', async (_name, over, path) => {
    const shop = randomUUID();
    const r = await adjust(shop, '5', randomUUID(), over);
    expect(r).toMatchObject({ ok: false, error: { code: 'invalid', errors: [{ path }] } });
    expect(await transactionsOf(shop)).toEqual([]);
    expect(await accounts(shop)).toEqual({});
  });
});
