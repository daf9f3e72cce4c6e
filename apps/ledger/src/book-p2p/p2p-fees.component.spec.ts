import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import {
  BalanceView,
  dlqTopic,
  envelope,
  Envelope,
  LedgerCommandTypes,
  P2pStatusChanged,
  Topics,
} from '@payments/contracts';
import { eventually, TopicReader } from '@payments/testing';
import { checkBooks } from '@payments/ledger-domain';
import { orderStatusChange, startTwoLedgers, TwoLedgers } from '../two-ledgers.spec-support';

/**
 * Decision 312 against real Kafka and PostgreSQL, two ledger instances: a completed P2P
 * transaction posts the shop's fee once whatever the redelivery, from available and the rest as
 * the shop's debt; need_action and failure post nothing; a shop without a fee line is charged
 * nothing; a fee above the amount is dead-lettered naming `fee`.
 */
describe('ledger: p2p.events, the fee of a completed P2P transaction', () => {
  let two: TwoLedgers;
  let pg: Client;
  let reader: TopicReader;

  beforeAll(async () => {
    two = await startTwoLedgers({ name: 'p2pfee', requester: 'gateway', env: { LEDGER_SETTLEMENT_SWEEP_MS: '100' } });
    pg = two.pg;
    reader = await TopicReader.start([two.prefix + dlqTopic(Topics.p2pEvents)]);
  });

  afterAll(async () => {
    await reader?.stop();
    await two?.stop();
  });

  const p2p = (shopId: string, p2pId: string, over: Partial<P2pStatusChanged> = {}): Envelope =>
    envelope({
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
        ...over,
      } satisfies P2pStatusChanged,
    });
  const send = (topic: string, messages: Envelope[]) =>
    two.producer.send({
      topic: two.prefix + topic,
      messages: messages.map((e) => ({
        key: (e.payload as { p2pId?: string; orderId?: string }).p2pId ?? (e.payload as { orderId: string }).orderId,
        value: JSON.stringify(e),
      })),
    });
  const balances = async (shopId: string): Promise<Record<string, string>> => {
    const { rows } = await pg.query<{ kind: string; currency: string; balance: string }>(
      `SELECT kind, currency, balance::text FROM ledger.accounts WHERE shop_id = $1 AND balance <> 0`,
      [shopId],
    );
    return Object.fromEntries(rows.map((r) => [`${r.kind}:${r.currency}`, String(Number(r.balance))]));
  };
  const balanceOf = async (shopId: string) => {
    const read = await two.requester.request<BalanceView>(
      Topics.ledgerCommands,
      shopId,
      LedgerCommandTypes.getBalance,
      {
        shopId,
      },
    );
    if (!read.ok) throw new Error(read.error.detail);
    return read.result.balances;
  };
  const feesOf = async (p2pId: string) =>
    (
      await pg.query(
        `SELECT kind, source_type, gross::text, fee::text, net::text, balance_amount::text, balance_currency
           FROM ledger.transactions WHERE source_id = $1`,
        [p2pId],
      )
    ).rows;
  const feeLine = (shopId: string, method: string, currency: string, percent: string, fixed: string) =>
    pg.query(
      `INSERT INTO ledger.fee_schedules (shop_id, method, currency, percent, fixed, minimum) VALUES ($1, $2, $3, $4, $5, 0)`,
      [shopId, method, currency, percent, fixed],
    );

  it('when a completion is delivered three times after need_action, then the fee posts once: available, then receivable, all to fee revenue', async () => {
    const shop = randomUUID();
    await pg.query(`INSERT INTO ledger.shop_settings (shop_id, settlement_delay_seconds) VALUES ($1, 0)`, [shop]);
    await feeLine(shop, 'p2p', 'USD', '1.5', '0.50');
    // 2.00 USD available: an order credit, settled at once (no card fee line).
    await send(Topics.ordersEvents, [
      orderStatusChange(shop, randomUUID(), { cost: { amount: '2.00', currency: 'USD' } }),
    ]);
    await eventually(async () => ((await balances(shop))['available:USD'] === '2' ? true : undefined), 20_000);

    const id = randomUUID();
    await send(Topics.p2pEvents, [p2p(shop, id, { status: 'need_action', previousStatus: 'in_progress' })]);
    const completed = p2p(shop, id, { previousStatus: 'need_action', sequence: 4 });
    await send(Topics.p2pEvents, [completed, completed]);
    await send(Topics.p2pEvents, [completed]);
    // fee = 1.5 % of 200.00 + 0.50 = 3.50: 2.00 from available, 1.50 owed
    await eventually(async () => ((await feesOf(id)).length === 1 ? true : undefined), 20_000);
    // A later event of the same transaction telling of the same completion posts nothing either.
    await send(Topics.p2pEvents, [p2p(shop, id, { previousStatus: 'need_action', sequence: 5 })]);
    await new Promise((r) => setTimeout(r, 1000));
    expect(await feesOf(id)).toEqual([
      {
        kind: 'p2p_fee',
        source_type: 'p2p',
        gross: '200.000000000000000000',
        fee: '3.500000000000000000',
        net: '196.500000000000000000',
        balance_amount: '-3.500000000000000000',
        balance_currency: 'USD',
      },
    ]);
    expect(await balances(shop)).toEqual({ 'receivable:USD': '-1.5' });
    // What the merchant reads (decision 345): the debt as owed, available at zero, never below.
    expect(await balanceOf(shop)).toEqual([
      { currency: 'USD', available: '0', pending: '0', reserved: '0', owed: '1.5' },
    ]);
  });

  it('when a P2P fee is all owed in a currency the shop never had money in, then GET /balance shows that currency with what it owes', async () => {
    const shop = randomUUID();
    await feeLine(shop, 'p2p', 'EUR', '0', '2.25');
    const id = randomUUID();
    await send(Topics.p2pEvents, [p2p(shop, id, { cost: { amount: '50.00', currency: 'EUR' } })]);
    await eventually(async () => ((await feesOf(id)).length === 1 ? true : undefined), 20_000);
    expect(await balances(shop)).toEqual({ 'receivable:EUR': '-2.25' });
    expect(await balanceOf(shop)).toEqual([
      { currency: 'EUR', available: '0', pending: '0', reserved: '0', owed: '2.25' },
    ]);
  });

  it('when a P2P transaction fails or waits in need_action, then nothing is posted; a shop without a fee line is charged nothing', async () => {
    const charged = randomUUID();
    const free = randomUUID();
    await feeLine(charged, '*', 'USDT-TRC20', '1', '0');
    const failed = randomUUID();
    const waiting = randomUUID();
    const uncharged = randomUUID();
    const usdt = { amount: '50.000001', currency: 'USDT', tokenStandard: 'TRC20' };
    await send(Topics.p2pEvents, [
      p2p(charged, failed, { status: 'failed', cost: usdt }),
      p2p(charged, waiting, { status: 'need_action', cost: usdt }),
      p2p(free, uncharged, { cost: usdt }),
    ]);
    // The `*` line is the P2P line of a shop without one of its own: 1 % of 50.000001 = 0.50000001 -> 0.5
    const last = randomUUID();
    await send(Topics.p2pEvents, [p2p(charged, last, { cost: usdt })]);
    await eventually(async () => ((await feesOf(last)).length === 1 ? true : undefined), 20_000);
    expect((await feesOf(last))[0]).toMatchObject({ fee: '0.500000000000000000', balance_currency: 'USDT-TRC20' });
    expect(await balances(charged)).toEqual({ 'receivable:USDT-TRC20': '-0.5' });
    for (const none of [failed, waiting, uncharged]) expect(await feesOf(none)).toEqual([]);
    expect(await balances(free)).toEqual({});
  });

  it('when the fee exceeds the amount, then the event is dead-lettered naming the fee and nothing is posted', async () => {
    const shop = randomUUID();
    await feeLine(shop, 'p2p', 'USD', '0', '5');
    const id = randomUUID();
    await send(Topics.p2pEvents, [p2p(shop, id, { cost: { amount: '1.00', currency: 'USD' } })]);
    const [dead] = await reader.waitFor(1, (m) => (m.value ?? '').includes(id), 30_000);
    expect(JSON.stringify(dead.headers)).toContain('fee: the fee 5 USD exceeds the amount 1 USD');
    expect(await feesOf(id)).toEqual([]);
    expect(await balances(shop)).toEqual({});
    expect(await checkBooks(async (sql, params) => (await pg.query(sql, params)).rows, 'ledger')).toEqual([]);
  });
});
