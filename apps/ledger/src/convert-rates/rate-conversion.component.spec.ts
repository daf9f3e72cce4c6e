import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { Producer } from 'kafkajs';
import { Client } from 'pg';
import { LedgerCommandTypes, OrderStatusChanged, RefundReservation, Topics } from '@payments/contracts';
import { checkBooks } from '@payments/ledger-domain';
import { KafkaRequestClient } from '@payments/messaging';
import { Amount, MoneyDecimal } from '@payments/money';
import { eventually, http } from '@payments/testing';
import { BooksMonitor } from '../books/books-monitor';
import { orderStatusChange, startTwoLedgers, TwoLedgers } from '../two-ledgers.spec-support';
import { SandboxRateFeed } from './sandbox-rate-feed';

const down6 = (x: Amount) => x.toDecimalPlaces(6, MoneyDecimal.ROUND_DOWN);

/**
 * Decisions 304–306 against real Kafka and PostgreSQL, two ledger instances in one group: a
 * completion without a rate waits in suspense, and is converted once its pair has a rate (by
 * either instance, once, rounded down to the minor unit), then settles and is refunded as any
 * credit; the sandbox feed keeps its rates in force without overriding an operator's; a corrupted
 * posting turns the books' metric red and is logged naming its check.
 */
describe('ledger: credits waiting for a rate converted once it exists, by two instances', () => {
  let two: TwoLedgers;
  let prefix: string;
  let producer: Producer;
  let pg: Client;
  let requester: KafkaRequestClient;

  beforeAll(async () => {
    two = await startTwoLedgers({
      name: 'rate',
      requester: 'orders',
      env: {
        LEDGER_SETTLEMENT_SWEEP_MS: '100',
        LEDGER_RATE_CONVERSION_MS: '100',
        LEDGER_BOOKS_CHECK_MS: '200',
        LEDGER_SANDBOX_ENVIRONMENT: 'true',
        LEDGER_SANDBOX_RATES: '{"USD/EUR": "0.92", "USD/USDC-TRC20": "0.999"}',
        LEDGER_SANDBOX_RATES_MS: '200',
      },
    });
    ({ prefix, producer, pg, requester } = two);
  });

  afterAll(async () => {
    await two?.stop();
  });

  const event = (shopId: string, orderId: string, over: Partial<OrderStatusChanged>) =>
    orderStatusChange(shopId, orderId, { cost: { amount: '100.00', currency: 'EUR' }, ...over });
  const send = (events: ReturnType<typeof event>[]) =>
    producer.send({
      topic: prefix + Topics.ordersEvents,
      messages: events.map((e) => ({ key: (e.payload as OrderStatusChanged).orderId, value: JSON.stringify(e) })),
    });
  const balances = async (shopId: string): Promise<Record<string, string>> => {
    const { rows } = await pg.query<{ kind: string; currency: string; balance: string }>(
      `SELECT kind, currency, trim_scale(balance)::text AS balance FROM ledger.accounts WHERE shop_id = $1 AND balance <> 0`,
      [shopId],
    );
    return Object.fromEntries(rows.map((r) => [`${r.kind}:${r.currency}`, r.balance]));
  };
  const count = async (sql: string, params: unknown[]) => (await pg.query(sql, params)).rows[0].n as number;
  const delay = (shopId: string, seconds: number) =>
    pg.query(`INSERT INTO ledger.shop_settings (shop_id, settlement_delay_seconds) VALUES ($1, $2)`, [shopId, seconds]);
  const aRate = (base: string, quote: string, rate: string, since = '1 minute') =>
    pg.query(
      `INSERT INTO ledger.rates (base, quote, rate, source, valid_from) VALUES ($1, $2, $3, 'operator:ops-1', now() - $4::interval)`,
      [base, quote, rate, since],
    );
  const books = () => checkBooks(async (sql, params) => (await pg.query(sql, params)).rows, 'ledger');

  it('when thirty completions wait for a rate and an operator sets it, then each is converted once, rounded down to the minor unit', async () => {
    const shop = randomUUID();
    await delay(shop, 3600);
    const orders = Array.from({ length: 30 }, (_, i) => ({ id: randomUUID(), amount: `${10 + i}.01` }));
    await send(
      orders.map((o) =>
        event(shop, o.id, {
          cost: { amount: o.amount, currency: 'EUR' },
          merchantBalance: { currency: 'USDT', tokenStandard: 'TRC20' },
        }),
      ),
    );
    const total = orders.reduce((t, o) => t.plus(o.amount), new MoneyDecimal(0));
    await eventually(
      async () => ((await balances(shop))['suspense:EUR'] === total.toFixed() ? true : undefined),
      30_000,
      'the thirty credits in suspense',
    );
    expect(await count(`SELECT count(*)::int AS n FROM ledger.awaiting_rates WHERE shop_id = $1`, [shop])).toBe(30);

    const rate = '1.0771234567';
    await aRate('EUR', 'USDT-TRC20', rate);
    await eventually(
      async () => ((await balances(shop))['suspense:EUR'] === undefined ? true : undefined),
      30_000,
      'the conversions',
    );
    const { rows } = await pg.query(
      `SELECT c.source_id, c.idempotency_key, c.status, trim_scale(c.gross)::text AS converted,
              trim_scale(c.balance_amount)::text AS credited, c.balance_currency, trim_scale(c.rate)::text AS rate,
              c.rate_source, o.id AS credit_id
         FROM ledger.transactions c JOIN ledger.transactions o ON o.source_id = c.source_id AND o.kind = 'order_completed'
        WHERE c.shop_id = $1 AND c.kind = 'suspense_converted' ORDER BY c.source_id`,
      [shop],
    );
    expect(rows).toHaveLength(30);
    for (const r of rows) {
      const order = orders.find((o) => o.id === r.source_id)!;
      expect(r).toEqual({
        source_id: order.id,
        idempotency_key: `convert:${r.credit_id}`,
        status: 'posted',
        converted: new MoneyDecimal(order.amount).toFixed(),
        credited: down6(new MoneyDecimal(order.amount).times(rate)).toFixed(),
        balance_currency: 'USDT-TRC20',
        rate,
        rate_source: 'operator:ops-1',
        credit_id: r.credit_id,
      });
    }
    const credited = orders.reduce(
      (t, o) => t.plus(down6(new MoneyDecimal(o.amount).times(rate))),
      new MoneyDecimal(0),
    );
    expect(await balances(shop)).toEqual({ 'pending:USDT-TRC20': credited.toFixed() });
    expect(await count(`SELECT count(*)::int AS n FROM ledger.awaiting_rates WHERE shop_id = $1`, [shop])).toBe(0);
    expect(await count(`SELECT count(*)::int AS n FROM ledger.pending_settlements WHERE shop_id = $1`, [shop])).toBe(
      30,
    );
    expect(await books()).toEqual([]);
  });

  it('when part of a waiting credit is held for a refund, then the rest converts; the hold released converts too; a refund after conversion is at its rate', async () => {
    const shop = randomUUID();
    await delay(shop, 0);
    const [big, small] = [randomUUID(), randomUUID()];
    const balance = { merchantBalance: { currency: 'USDT', tokenStandard: 'ERC20' } };
    await send([
      event(shop, big, balance),
      event(shop, small, { ...balance, cost: { amount: '50.00', currency: 'EUR' } }),
    ]);
    await eventually(async () => ((await balances(shop))['suspense:EUR'] === '150' ? true : undefined), 30_000);
    const reserve = (orderId: string, refundId: string, amount: string) =>
      requester.request<RefundReservation>(Topics.ledgerCommands, shop, LedgerCommandTypes.reserveRefund, {
        refundId,
        orderId,
        shopId: shop,
        amount,
      });
    const released = randomUUID();
    expect(await reserve(small, released, '20.00')).toMatchObject({
      ok: true,
      result: { currency: 'EUR', amount: '20' },
    });

    const rate = '1.0812345';
    await aRate('EUR', 'USDT-ERC20', rate);
    const at = (eur: string) => down6(new MoneyDecimal(eur).times(rate));
    await eventually(async () => {
      const b = await balances(shop);
      return b['available:USDT-ERC20'] === at('100').plus(at('30')).toFixed() ? b : undefined;
    }, 30_000);
    expect(await balances(shop)).toEqual({
      'available:USDT-ERC20': '140.560485',
      'reserved:EUR': '20',
    });

    // The refund never came to be: its 20.00 EUR go back to suspense and are converted in turn.
    await requester.request(Topics.ledgerCommands, shop, LedgerCommandTypes.releaseRefund, {
      refundId: released,
      shopId: shop,
    });
    await eventually(async () => {
      const b = await balances(shop);
      return b['available:USDT-ERC20'] === '162.185175' ? b : undefined;
    }, 30_000);
    expect(
      (
        await pg.query(
          `SELECT idempotency_key FROM ledger.transactions WHERE source_id = $1 AND kind = 'suspense_converted' ORDER BY created_at`,
          [small],
        )
      ).rows.map((r) => r.idempotency_key.replace(/[0-9a-f-]{36}/, '<credit>')),
    ).toEqual(['convert:<credit>', 'convert:<credit>:2']);

    // After the conversion a refund is the converted credit's: held from available at its rate, booked once.
    const held = randomUUID();
    expect(await reserve(big, held, '10.00')).toMatchObject({
      ok: true,
      result: { currency: 'USDT-ERC20', amount: at('10').toFixed() },
    });
    const refunded = (refundId: string, amount: string, sequence: number) =>
      event(shop, big, {
        ...balance,
        status: 'partially_refunded',
        previousStatus: 'completed',
        sequence,
        cost: { amount: '100.00', currency: 'EUR' },
        refund: { refundId, amount },
      });
    // One held, one accepted where no ledger was asked (no hold): both at the conversion's rate.
    await send([refunded(held, '10.00', 4), refunded(randomUUID(), '5.00', 5)]);
    const left = new MoneyDecimal('162.185175').minus(at('10')).minus(at('5'));
    await eventually(async () => {
      const b = await balances(shop);
      return b['available:USDT-ERC20'] === left.toFixed() ? b : undefined;
    }, 30_000);
    expect(await balances(shop)).toEqual({ 'available:USDT-ERC20': '145.966658' });
    expect(await books()).toEqual([]);
  });

  it('when the sandbox feed is on, then its rate is in force once, a completion converts at it, and an operator rate is not overridden', async () => {
    await two.ledgers[0].app.get(SandboxRateFeed).refresh();
    const { rows: feed } = await pg.query(
      `SELECT trim_scale(rate)::text AS rate FROM ledger.rates WHERE base = 'USD' AND quote = 'EUR' AND source = 'sandbox-feed'`,
    );
    expect(feed).toEqual([{ rate: '0.92' }]);
    const shop = randomUUID();
    const order = randomUUID();
    await delay(shop, 3600);
    await send([
      event(shop, order, { cost: { amount: '10.00', currency: 'USD' }, merchantBalance: { currency: 'EUR' } }),
    ]);
    await eventually(async () => ((await balances(shop))['pending:EUR'] === '9.2' ? true : undefined), 30_000);
    const { rows } = await pg.query(
      `SELECT rate_source FROM ledger.transactions WHERE source_id = $1 AND kind = 'order_completed'`,
      [order],
    );
    expect(rows).toEqual([{ rate_source: 'sandbox-feed' }]);

    // An operator's rate from now on: the feed, whose rate is older, leaves it in force.
    await aRate('USD', 'EUR', '0.95', '0 seconds');
    const feeds = two.ledgers.map((l) => l.app.get(SandboxRateFeed));
    expect(await Promise.all(feeds.map((f) => f.refresh()))).toEqual([0, 0]);
  });

  it("when an operator sets a back-dated rate after the feed's, then the feed steps aside: a completion converts at the operator's", async () => {
    const feed = two.ledgers[0].app.get(SandboxRateFeed);
    await feed.refresh();
    // From a day ago, open-ended: it covers now, though the feed's rate started later.
    await aRate('USD', 'USDC-TRC20', '1.001', '1 day');
    const shop = randomUUID();
    const order = randomUUID();
    await delay(shop, 3600);
    await send([
      event(shop, order, {
        cost: { amount: '10.00', currency: 'USD' },
        merchantBalance: { currency: 'USDC', tokenStandard: 'TRC20' },
      }),
    ]);
    await eventually(async () => ((await balances(shop))['pending:USDC-TRC20'] === '10.01' ? true : undefined), 30_000);
    const { rows } = await pg.query(
      `SELECT rate_source FROM ledger.transactions WHERE source_id = $1 AND kind = 'order_completed'`,
      [order],
    );
    expect(rows).toEqual([{ rate_source: 'operator:ops-1' }]);
    expect(await feed.refresh()).toBe(0);
  });

  it('when a posting is corrupted behind the books, then the books metric turns red and the check is logged as an error', async () => {
    const metricsOf = async () => (await http('GET', `http://127.0.0.1:${two.ledgers[0].port}/metrics`)).text;
    await eventually(async () =>
      /payments_ledger_books_violations\{check="transaction_unbalanced"\} 0\b/.test(await metricsOf())
        ? true
        : undefined,
    );
    const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      const { rows } = await pg.query(`SELECT transaction_id, account_key FROM ledger.postings LIMIT 1`);
      // What no code path can do (the statement trigger refuses it): a posting written around the triggers.
      await pg.query(`SET session_replication_role = replica`);
      await pg.query(
        `INSERT INTO ledger.postings (transaction_id, account_key, currency, amount)
         SELECT $1, key, currency, 1 FROM ledger.accounts WHERE key = $2`,
        [rows[0].transaction_id, rows[0].account_key],
      );
      await pg.query(`SET session_replication_role = origin`);
      const text = await eventually(async () => {
        const t = await metricsOf();
        return /payments_ledger_books_violations\{check="transaction_unbalanced"\} 1\b/.test(t) ? t : undefined;
      });
      expect(text).toMatch(/payments_ledger_books_violations\{check="balance_differs_from_postings"\} 1\b/);
      expect(text).toMatch(/payments_ledger_books_last_check_timestamp_seconds \d+/);
      await eventually(async () =>
        errors.mock.calls.some(([line]) => /^books check transaction_unbalanced: 1 violation/.test(String(line)))
          ? true
          : undefined,
      );
      expect(await two.ledgers[1].app.get(BooksMonitor).check()).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            check: 'transaction_unbalanced',
            findings: [expect.objectContaining({ subject: `transaction ${rows[0].transaction_id}` })],
          }),
        ]),
      );
    } finally {
      errors.mockRestore();
    }
  });
});
