import { randomUUID } from 'node:crypto';
import { Partitioners, Producer } from 'kafkajs';
import { Client } from 'pg';
import {
  CreatePayoutCommand,
  envelope,
  OrderStatusChanged,
  PayoutCommandTypes,
  PayoutEventTypes,
  PayoutStatusChanged,
  Topics,
} from '@payments/contracts';
import { checkBooks, loadLedgerConfig, RunningLedger, startLedger } from '@payments/apps/ledger';
import { loadPayoutsConfig, RunningPayouts, startPayouts } from '@payments/apps/payouts';
import { KafkaRequestClient } from '@payments/messaging';
import { eventually, testKafka, uniqueName } from '@payments/testing';
import { TestStack } from '../support/stack';

/**
 * Issue 29: a payout is accepted only when the shop's available balance covers it, whatever the
 * concurrency — two payouts instances and two ledger instances, 50 payouts at once against a
 * balance that covers exactly 10. Then the second phase: a failed payout gives its reserve back,
 * a completed one takes it out of the books.
 */
describe('ledger: payout holds against the available balance', () => {
  let stack: TestStack;
  const ledgers: RunningLedger[] = [];
  let secondPayouts: RunningPayouts;
  let client: KafkaRequestClient;
  let producer: Producer;
  let pg: Client;
  const shop = randomUUID();

  beforeAll(async () => {
    const extraEnv = { LEDGER_HOLDS: 'true', LEDGER_SETTLEMENT_SWEEP_MS: '200' };
    stack = await TestStack.start({ services: ['payouts'], extraEnv, payouts: { dispatch: { autoStart: false } } });
    secondPayouts = await startPayouts(loadPayoutsConfig(stack.env(extraEnv)), 0, { dispatch: { autoStart: false } });
    for (let i = 0; i < 2; i++) ledgers.push(await startLedger(loadLedgerConfig(stack.env(extraEnv)), 0));
    client = new KafkaRequestClient(
      { ...loadLedgerConfig(stack.env()).kafka, clientId: 'holds-spec' },
      { requester: 'gateway', instanceId: uniqueName('gw') },
      20_000,
    );
    await client.start();
    producer = testKafka('holds-spec').producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    pg = new Client({ connectionString: stack.databaseUrl });
    await pg.connect();
  });

  afterAll(async () => {
    await pg?.end();
    await producer?.disconnect();
    await client?.stop();
    await Promise.all(ledgers.map((l) => l.close()));
    await secondPayouts?.close();
    await stack?.stop();
  });

  const balances = async () => {
    const { rows } = await pg.query<{ kind: string; balance: string }>(
      `SELECT kind, balance::text FROM ledger.accounts WHERE shop_id = $1 AND currency = 'USD'`,
      [shop],
    );
    return Object.fromEntries(rows.map((r) => [r.kind, Number(r.balance)]));
  };

  const payout = (n: number): CreatePayoutCommand => ({
    payoutId: randomUUID(),
    shopId: shop,
    merchantPayoutId: `p-${n}`,
    method: 'card_payout',
    provider: 'sandbox',
    cost: { amount: '9.50', currency: 'USD' },
    payee: { name: 'A. Payee' },
  });

  it('when 50 payouts of 9.50 + 0.50 fee come at once against 100.00 available, then exactly 10 are accepted and 40 refused with 1-06-02', async () => {
    // The shop's money: one completed order of 100.00 USD, settled at once (delay 0).
    await pg.query(`INSERT INTO ledger.shop_settings (shop_id, settlement_delay_seconds) VALUES ($1, 0)`, [shop]);
    await pg.query(
      `INSERT INTO ledger.fee_schedules (shop_id, method, currency, fixed) VALUES ($1, 'card_payout', 'USD', 0.50)`,
      [shop],
    );
    const orderId = randomUUID();
    const completed: OrderStatusChanged = {
      orderId,
      shopId: shop,
      merchantOrderId: 'o-1',
      sequence: 3,
      status: 'completed',
      previousStatus: 'in_progress',
      cost: { amount: '100.00', currency: 'USD' },
      provider: 'sandbox',
    };
    await producer.send({
      topic: stack.prefix + Topics.ordersEvents,
      messages: [
        {
          key: orderId,
          value: JSON.stringify(envelope({ type: 'order.status_changed', occurredAt: new Date(), payload: completed })),
        },
      ],
    });
    await eventually(
      async () => ((await balances()).available === 100 ? true : undefined),
      30_000,
      'the settled 100.00',
    );

    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, n) =>
        client.request(Topics.payoutsCommands, shop, PayoutCommandTypes.create, payout(n), { timeoutMs: 30_000 }),
      ),
    );
    const accepted = answers.filter((a) => a.ok);
    const refused = answers.filter((a) => !a.ok);
    expect(accepted).toHaveLength(10);
    expect(refused).toHaveLength(40);
    for (const r of refused)
      expect(r).toMatchObject({
        ok: false,
        error: { code: 'unprocessable', extensions: { statusCode: '1-06-02', retryAllowed: true } },
      });
    expect(await balances()).toMatchObject({ available: 0, reserved: 100 });
    // Nothing was created for a refused payout: 10 rows, 10 holds.
    const { rows } = await pg.query(
      `SELECT (SELECT count(*)::int FROM payouts.payouts WHERE shop_id = $1) AS payouts,
              (SELECT count(*)::int FROM ledger.holds WHERE shop_id = $1) AS holds,
              (SELECT min(balance)::text FROM ledger.accounts WHERE shop_id = $1) AS lowest`,
      [shop],
    );
    expect(rows[0]).toEqual({ payouts: 10, holds: 10, lowest: '0.000000000000000000' });
    // Each refusal is kept under the payouts service's command (decision 354): 40 payouts, 40 commands.
    const { rows: refusals } = await pg.query(
      `SELECT count(DISTINCT held_id)::int AS payouts, count(DISTINCT attempt_id)::int AS attempts
         FROM ledger.hold_refusals WHERE shop_id = $1 AND held_kind = 'payout'`,
      [shop],
    );
    expect(refusals).toEqual([{ payouts: 40, attempts: 40 }]);

    // Second phase: one payout fails (its 10.00 comes back), one completes (its 10.00 leaves).
    const ids = accepted.map((a) => (a.ok ? (a.result as { id: string }).id : ''));
    const event = (payoutId: string, status: PayoutStatusChanged['status']) =>
      envelope({
        type: PayoutEventTypes.statusChanged,
        occurredAt: new Date(),
        payload: {
          payoutId,
          shopId: shop,
          merchantPayoutId: 'x',
          sequence: 3,
          status,
          previousStatus: 'in_progress',
          cost: { amount: '9.50', currency: 'USD' },
        } satisfies PayoutStatusChanged,
      });
    const failed = event(ids[0], 'failed');
    await producer.send({
      topic: stack.prefix + Topics.payoutsEvents,
      messages: [failed, failed, event(ids[1], 'completed')].map((e) => ({
        key: (e.payload as PayoutStatusChanged).payoutId,
        value: JSON.stringify(e),
      })),
    });
    await eventually(
      async () => {
        const b = await balances();
        return b.available === 10 && b.reserved === 80 ? b : undefined;
      },
      20_000,
      'the hold voided and the other posted',
    );
    const { rows: fee } = await pg.query(`SELECT balance::text FROM ledger.accounts WHERE key = 'fee_revenue:USD'`);
    expect(Number(fee[0].balance)).toBe(0.5);
    expect(await checkBooks(async (sql, params) => (await pg.query(sql, params)).rows, 'ledger')).toEqual([]);
  });
});
