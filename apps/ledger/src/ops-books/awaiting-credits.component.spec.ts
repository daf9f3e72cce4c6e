import { randomUUID } from 'node:crypto';
import {
  AwaitingCreditList,
  commandTopic,
  CreditRelease,
  LedgerCommandTypes,
  LedgerOpsCommandTypes,
  OperatorIdentity,
  OrderStatusChanged,
  RefundReservation,
  Topics,
} from '@payments/contracts';
import { checkBooks } from '@payments/ledger-domain';
import { eventually } from '@payments/testing';
import { SuspenseConversionSweeper } from '../convert-rates/suspense-conversion.sweeper';
import { orderStatusChange, startTwoLedgers, TwoLedgers } from '../two-ledgers.spec-support';

/**
 * Decision 344 against real Kafka and PostgreSQL, two ledger instances: operators list the credits
 * waiting in suspense for a rate, parked ones with why; an admin releases a parked one with a
 * reason (kept with who released it), after which the next sweep converts it; a release of a
 * credit that is not parked changes nothing, one whose refund hold is open is refused, an operator
 * who is no admin or a blank reason is refused. The sweep runs only when the test calls it.
 */
describe('ledger: parked credits listed and released by an admin on ledger.ops-commands', () => {
  let two: TwoLedgers;
  const ada: OperatorIdentity = { id: randomUUID(), name: 'Ada Admin', role: 'admin' };
  const dana: OperatorIdentity = { id: randomUUID(), name: 'Dana Operator', role: 'operator' };

  beforeAll(async () => {
    two = await startTwoLedgers({
      name: 'release',
      requester: 'backoffice',
      env: { LEDGER_RATE_CONVERSION_MS: '3600000' },
    });
  });
  afterAll(async () => {
    await two?.stop();
  });

  const ops = <T>(type: string, key: string, payload: object, operator: OperatorIdentity = ada) =>
    two.requester.request<T>(commandTopic('ledger', 'operator'), key, type, { ...payload, operator });
  const list = (shopId?: string) =>
    ops<AwaitingCreditList>(LedgerOpsCommandTypes.listAwaitingCredits, shopId ?? 'awaiting-credits', {
      ...(shopId ? { shopId } : {}),
      limit: 100,
    });
  const release = (creditId: string, reason = 'Added the currency to the registry, ticket 5120', who = ada) =>
    ops<CreditRelease>(LedgerOpsCommandTypes.releaseCredit, creditId, { creditId, reason }, who);
  const balances = async (shopId: string): Promise<Record<string, string>> => {
    const { rows } = await two.pg.query<{ kind: string; currency: string; balance: string }>(
      `SELECT kind, currency, trim_scale(balance)::text AS balance FROM ledger.accounts WHERE shop_id = $1 AND balance <> 0`,
      [shopId],
    );
    return Object.fromEntries(rows.map((r) => [`${r.kind}:${r.currency}`, r.balance]));
  };
  /** A completion of 100.00 CHF to a USDC balance with no rate: it waits in suspense. Answers the credit's id. */
  const waitingCredit = async (shop: string, order: string, tokenStandard: string) => {
    const e = orderStatusChange(shop, order, {
      cost: { amount: '100.00', currency: 'CHF' },
      merchantBalance: { currency: 'USDC', tokenStandard },
    });
    await two.producer.send({
      topic: two.prefix + Topics.ordersEvents,
      messages: [{ key: (e.payload as OrderStatusChanged).orderId, value: JSON.stringify(e) }],
    });
    await eventually(async () => ((await balances(shop))['suspense:CHF'] === '100' ? true : undefined), 30_000);
    const { rows } = await two.pg.query<{ id: string }>(
      `SELECT id FROM ledger.transactions WHERE source_id = $1 AND kind = 'order_completed'`,
      [order],
    );
    return rows[0].id;
  };
  const aRate = (quote: string) =>
    two.pg.query(
      `INSERT INTO ledger.rates (base, quote, rate, source, valid_from) VALUES ('CHF', $1, '1.08', 'operator:release-spec', now() - interval '1 minute')`,
      [quote],
    );
  const sweep = () => two.ledgers[0].app.get(SuspenseConversionSweeper).sweep();
  const releases = async (creditId: string) =>
    (
      await two.pg.query(
        `SELECT was_parked, reason, operator_id, operator_name FROM ledger.credit_releases WHERE transaction_id = $1`,
        [creditId],
      )
    ).rows;
  const booksSound = async () =>
    expect(await checkBooks(async (sql, params) => (await two.pg.query(sql, params)).rows, 'ledger')).toEqual([]);

  it('when a credit whose conversion failed is released by an admin after the fix, then the next sweep converts it; a second release changes nothing', async () => {
    const [shop, order] = [randomUUID(), randomUUID()];
    const credit = await waitingCredit(shop, order, 'TRC20');
    expect(await list(shop)).toMatchObject({
      ok: true,
      result: {
        total: 1,
        items: [
          {
            creditId: credit,
            shopId: shop,
            orderId: order,
            orderCurrency: 'CHF',
            balanceCurrency: 'USDC-TRC20',
            amount: '100',
            status: 'awaiting_rate',
            parked: null,
            parkedAt: null,
          },
        ],
      },
    });
    // Its conversion fails: it waits for a balance currency the registry does not know.
    const unknown = `NOPE${Date.now()}`;
    await two.pg.query(`UPDATE ledger.awaiting_rates SET balance_currency = $2 WHERE order_id = $1`, [order, unknown]);
    await aRate(unknown);
    await aRate('USDC-TRC20');
    await sweep();
    const listed = await list(shop);
    if (!listed.ok) throw new Error(listed.error.detail);
    expect(listed.result.items).toEqual([
      expect.objectContaining({
        creditId: credit,
        status: 'parked',
        parked: expect.stringMatching(/^conversion failed: /),
      }),
    ]);
    const parkedWith = listed.result.items[0].parked;

    // Refused: an operator who is no admin, a blank reason. Nothing changes.
    expect(await release(credit, 'Fixed', dana)).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(await release(credit, '   ')).toMatchObject({
      ok: false,
      error: { code: 'invalid', errors: [{ path: 'reason' }] },
    });
    expect(await list(shop)).toEqual(listed);
    expect(await releases(credit)).toEqual([]);

    // The cause fixed (the credit's balance currency put right), an admin releases it.
    await two.pg.query(`UPDATE ledger.awaiting_rates SET balance_currency = 'USDC-TRC20' WHERE order_id = $1`, [order]);
    const released = await release(credit);
    expect(released).toMatchObject({
      ok: true,
      result: {
        released: true,
        wasParked: parkedWith,
        credit: { creditId: credit, status: 'awaiting_rate', parked: null },
      },
    });
    expect(await releases(credit)).toEqual([
      {
        was_parked: parkedWith,
        reason: 'Added the currency to the registry, ticket 5120',
        operator_id: ada.id,
        operator_name: 'Ada Admin',
      },
    ]);
    // The same release again (a retry): nothing more.
    expect(await release(credit)).toMatchObject({ ok: true, result: { released: false, wasParked: null } });
    expect(await releases(credit)).toHaveLength(1);

    await sweep();
    expect(await balances(shop)).toEqual({ 'pending:USDC-TRC20': '108' });
    expect(await list(shop)).toEqual({ ok: true, result: { items: [], total: 0 } });
    expect(await release(credit)).toMatchObject({
      ok: false,
      error: { code: 'not_found', detail: expect.stringContaining('waits for no rate') },
    });
    await booksSound();
  });

  it('when a credit is parked while a refund holds its suspense, then its release is refused naming creditId', async () => {
    const [shop, order] = [randomUUID(), randomUUID()];
    const credit = await waitingCredit(shop, order, 'ERC20');
    const held = await two.requester.request<RefundReservation>(
      Topics.ledgerCommands,
      shop,
      LedgerCommandTypes.reserveRefund,
      { refundId: randomUUID(), orderId: order, shopId: shop, amount: '100.00' },
    );
    expect(held).toMatchObject({ ok: true, result: { status: 'held' } });
    await aRate('USDC-ERC20');
    await sweep();
    expect(await list(shop)).toMatchObject({
      ok: true,
      result: { items: [{ creditId: credit, parked: 'refund hold' }] },
    });

    expect(await release(credit)).toMatchObject({
      ok: false,
      error: { code: 'unprocessable', errors: [{ path: 'creditId', message: expect.stringContaining('refund') }] },
    });
    expect(await list(shop)).toMatchObject({ ok: true, result: { items: [{ parked: 'refund hold' }] } });
    expect(await releases(credit)).toEqual([]);
  });

  it('when the list is asked for every shop, then it has each shop’s waiting credits, oldest first; an unknown credit is not found', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const first = await waitingCredit(a, randomUUID(), 'BEP20');
    const second = await waitingCredit(b, randomUUID(), 'BEP20');
    const all = await list();
    if (!all.ok) throw new Error(all.error.detail);
    const ids = all.result.items.map((c) => c.creditId);
    expect(ids.indexOf(first)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(second)).toBeGreaterThan(ids.indexOf(first));
    expect(all.result.total).toBe(all.result.items.length);
    expect(await release(randomUUID())).toMatchObject({
      ok: false,
      error: { code: 'not_found', detail: 'No such credit.' },
    });
  });
});
