import { randomUUID } from 'node:crypto';
import { Client, Pool } from 'pg';
import { callbackEventId } from '@payments/apps/callbacks-ingest';
import { EnvReader, PaymentsMetrics } from '@payments/platform';
import { eventually, http } from '@payments/testing';
import { reconcile, ReconciliationRun } from '../../apps/backoffice/src/reconciliation/reconcile';
import { readReconciliationConfig } from '../../apps/backoffice/src/reconciliation/reconciliation.config';
import { Query, ReconciliationRepository } from '../../apps/backoffice/src/reconciliation/reconciliation.repository';
import { aHostedOrder, aShop, TestShop } from '../support/merchant';
import { TEST_OPS_TOKEN, TestStack } from '../support/stack';
import { sandboxCallback } from '../support/provider';
import { untilStatus } from '../support/wait';

/** Luhn-valid visa numbers in the sandbox acquirers' BIN profiles (apps/provider-sandbox README). */
const CARDS = {
  /** Acquirer A (sandbox) answers 503: unavailable. */
  aDown: '4500000000000007',
  /** A answers 422 (declined before acceptance; 2-07-01 allows retry). */
  aDeclines: '4501000000000006',
  /** Both A and B answer 422. */
  bothDecline: '4501900000000007',
  /** Both take it. */
  ok: '4111111111111111',
};

/**
 * Issue 30 item 4 (decisions 320-323): an operator sets a shop's route for its card method
 * through the backoffice; a hosted card payment goes to the first acquirer of the route, and
 * when that one refuses it before accepting it (down, or a decline whose code allows retry) a new
 * attempt goes to the second, and the order completes there with both attempts in data.payments[]
 * each with its status code, and is booked on the second's clearing account. A timed-out attempt
 * never fails over. Bad routes are 400s naming the field, every change is audited.
 */
describe('routing and failover between two sandbox acquirers', () => {
  let stack: TestStack;
  let shop: TestShop;
  let db: Client;

  beforeAll(async () => {
    stack = await TestStack.start({
      checkout: true,
      ledger: true,
      // A down is sent twice (50 ms apart), then fails over; settings are read at once.
      extraEnv: { PROVIDER_MAX_ATTEMPTS: '2', PROVIDER_RETRY_BACKOFF_MS: '50', ORDERS_SWEEP_INTERVAL_MS: '0' },
    });
    shop = await aShop(stack.gateway!.url, 'Routed Shop');
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  const ops = (method: string, path: string, body?: unknown) =>
    http(method, `${stack.backoffice!.url}/ops/v1${path}`, { token: TEST_OPS_TOKEN, body });
  const route = (providers: unknown[], reason = 'A first, B when A refuses') =>
    ops('PUT', `/shops/${shop.shopId}/routes/card`, { providers, reason });
  const orderOf = async (id: string) =>
    (await http('GET', `${stack.gateway!.url}/order/${id}`, { token: shop.apiKey })).body;
  const dispatches = async (id: string) =>
    (
      await db.query(
        'SELECT provider, status FROM orders.provider_dispatches WHERE order_id = $1 ORDER BY created_at, payment_id',
        [id],
      )
    ).rows;

  /** A hosted order paid by `card` on its page (a form post, as without JavaScript). */
  async function paidByCard(card: string, amount = '100.00'): Promise<string> {
    const order = await aHostedOrder(stack.gateway!.url, stack.checkout!.url, shop, amount, 'USD');
    const res = await fetch(order.link, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'en' },
      body: `method=card&cardNumber=${card}&expiry=12%2F30`,
      redirect: 'manual',
    });
    expect(res.status).toBe(303);
    return order.id;
  }

  it('when a route names an unknown provider, one paid only from its app, a range ending before it starts or no reason, then 400 naming the field and nothing is stored', async () => {
    const cases: [unknown, string][] = [
      [{ providers: [{ provider: 'acme' }], reason: 'x' }, 'providers[0].provider'],
      [{ providers: [{ provider: 'sandbox' }, { provider: 'click' }], reason: 'x' }, 'providers[1].provider'],
      [
        { providers: [{ provider: 'sandbox', when: { minAmount: '10', maxAmount: '5' } }], reason: 'x' },
        'providers[0].when.minAmount',
      ],
      [{ providers: [{ provider: 'sandbox', when: { brands: ['diners'] } }], reason: 'x' }, 'providers[0].when.brands'],
      [{ providers: [{ provider: 'sandbox' }] }, 'reason'],
      [{ providers: [], reason: 'x' }, 'providers'],
    ];
    for (const [body, path] of cases) {
      const res = await ops('PUT', `/shops/${shop.shopId}/routes/card`, body);
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    const notAMethod = await ops('PUT', `/shops/${shop.shopId}/routes/no-such-method`, {
      providers: [{ provider: 'sandbox' }],
      reason: 'x',
    });
    expect(notAMethod.status).toBe(400);
    expect(notAMethod.body.errors).toEqual([{ path: 'method', message: expect.any(String) }]);
    expect((await ops('GET', `/shops/${shop.shopId}/routes/card`)).status).toBe(404);
    expect((await db.query('SELECT count(*)::int AS n FROM orders.shop_routes')).rows[0].n).toBe(0);
  });

  it('when no route is set, then a card payment goes to the method’s provider exactly as before: A down fails the order 2-01-01', async () => {
    const id = await paidByCard(CARDS.aDown);
    const failed = await untilStatus(() => orderOf(id), 'failed', `order ${id} failed`);
    expect(failed.statusCode).toBe('2-01-01');
    expect(failed.data.payments).toEqual([
      expect.objectContaining({ provider: 'sandbox', status: 'failed', statusCode: '2-01-01' }),
    ]);
    expect(await dispatches(id)).toEqual([{ provider: 'sandbox', status: 'gave_up' }]);
  });

  it('when an operator sets a route, then it is answered, read back and audited with the operator and reason', async () => {
    const providers = [
      { provider: 'sandbox', when: { instrumentTypes: ['card'], currencies: ['USD'] } },
      { provider: 'sandbox-b' },
    ];
    const set = await route(providers);
    expect(set).toMatchObject({ status: 200, body: { shopId: shop.shopId, method: 'card', providers } });
    expect((await ops('GET', `/shops/${shop.shopId}/routes/card`)).body).toEqual(set.body);
    const audit = (await ops('GET', '/audit?action=orders.route.set')).body.items;
    expect(audit).toEqual([
      expect.objectContaining({
        reason: 'A first, B when A refuses',
        object: { type: 'shop', id: shop.shopId },
        before: null,
        after: set.body,
        operator: expect.objectContaining({ role: expect.any(String) }),
      }),
    ]);
    const stored = await db.query('SELECT updated_by FROM orders.shop_routes WHERE shop_id = $1', [shop.shopId]);
    expect(stored.rows[0].updated_by).toEqual(audit[0].operator);
  });

  it('when acquirer A is down for the card, then a new attempt goes to B and the order completes there, booked on B', async () => {
    const id = await paidByCard(CARDS.aDown);
    const completed = await untilStatus(() => orderOf(id), 'completed', `order ${id} completed through B`, 30000);
    expect(completed.data.payments).toHaveLength(2);
    const [a, b] = [...completed.data.payments].sort((x: { createdAt: string }, y: { createdAt: string }) =>
      x.createdAt.localeCompare(y.createdAt),
    );
    expect(a).toMatchObject({ provider: 'sandbox', status: 'failed', statusCode: '2-01-01' });
    expect(b).toMatchObject({ provider: 'sandbox-b', status: 'success', statusCode: expect.any(String) });
    expect(a.paymentId).not.toBe(b.paymentId);
    expect(await dispatches(id)).toEqual([
      { provider: 'sandbox', status: 'gave_up' },
      { provider: 'sandbox-b', status: 'accepted' },
    ]);
    // The order never failed in between: registered → in_progress → completed.
    const statuses = await db.query(
      `SELECT envelope->'payload'->>'status' AS status FROM orders.outbox
        WHERE key = $1 AND envelope->>'type' = 'order.status_changed' ORDER BY id`,
      [id],
    );
    expect(statuses.rows.map((r) => r.status)).toEqual(['registered', 'in_progress', 'completed']);
    // The ledger books the completion on the clearing account of the acquirer that completed it.
    const booked = await eventually(
      async () => {
        const r = await db.query(
          "SELECT provider FROM ledger.transactions WHERE source_type = 'order' AND source_id = $1",
          [id],
        );
        return r.rows.length > 0 ? r.rows.map((x) => x.provider) : undefined;
      },
      15000,
      'the completion booked',
    );
    expect(booked).toEqual(['sandbox-b']);
  });

  it('when acquirer A declines the card before accepting it, then B takes it at once', async () => {
    const id = await paidByCard(CARDS.aDeclines);
    const completed = await untilStatus(() => orderOf(id), 'completed', `order ${id} completed through B`, 30000);
    expect(completed.data.payments).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ provider: 'sandbox', status: 'failed', statusCode: '2-07-01' }),
        expect.objectContaining({ provider: 'sandbox-b', status: 'success' }),
      ]),
    );
    expect(await dispatches(id)).toEqual([
      { provider: 'sandbox', status: 'refused' },
      { provider: 'sandbox-b', status: 'accepted' },
    ]);
  });

  /** This process's failover counts by `from>to reason`. */
  const failovers = async () =>
    new Map(
      (await PaymentsMetrics.paymentFailovers.get()).values.map((v) => [
        `${v.labels.from}>${v.labels.to} ${v.labels.reason}`,
        v.value,
      ]),
    );

  it('when every acquirer of the route declines, then the order fails as without a route, each attempt with its code', async () => {
    const before = await failovers();
    const id = await paidByCard(CARDS.bothDecline);
    const failed = await untilStatus(() => orderOf(id), 'failed', `order ${id} failed`, 30000);
    expect(failed.statusCode).toBe('2-07-01');
    expect(failed.data.payments).toHaveLength(2);
    expect(await dispatches(id)).toEqual([
      { provider: 'sandbox', status: 'refused' },
      { provider: 'sandbox-b', status: 'refused' },
    ]);
    // Operators see this order's one failover (A declined; B had no next): counted once, after commit.
    const after = await failovers();
    const grown = [...after]
      .filter(([k, v]) => v !== (before.get(k) ?? 0))
      .map(([k, v]) => [k, v - (before.get(k) ?? 0)]);
    expect(grown).toEqual([['sandbox>sandbox-b refused', 1]]);
  });

  it('when the attempt at A times out, then it never fails over: need_action 1-07-02, and A’s late callback completes it', async () => {
    // .31: the sandbox answers after SANDBOX_SLOW_MS, past PROVIDER_TIMEOUT_MS.
    const id = await paidByCard(CARDS.ok, '100.31');
    await untilStatus(() => orderOf(id), 'need_action', `order ${id} need_action`, 30000);
    const completed = await untilStatus(() => orderOf(id), 'completed', `order ${id} completed by A`, 30000);
    expect(completed.data.payments).toEqual([expect.objectContaining({ provider: 'sandbox' })]);
    expect(await dispatches(id)).toEqual([{ provider: 'sandbox', status: 'timed_out' }]);
  });

  /** A's 503 fails over to B, which takes it and never calls back (.99): the order waits for B. */
  async function failedOverToSilentB(): Promise<{ id: string; a: string; b: string }> {
    const id = await paidByCard(CARDS.aDown, '100.99');
    const waiting = await untilStatus(() => orderOf(id), 'in_progress', `order ${id} in_progress with B`, 30000);
    expect(await dispatches(id)).toEqual([
      { provider: 'sandbox', status: 'gave_up' },
      { provider: 'sandbox-b', status: 'accepted' },
    ]);
    const idOf = (provider: string) =>
      waiting.data.payments.find((p: { provider: string }) => p.provider === provider).paymentId as string;
    return { id, a: idOf('sandbox'), b: idOf('sandbox-b') };
  }
  const report = (id: string, paymentId: string, status: 'success' | 'failed') => ({
    reference: id,
    paymentId,
    status,
    amount: '100.99',
    currency: 'USD',
  });
  /** The attempt `paymentId` of order `id` once it reads `statusCode` (a consumed callback). */
  const attemptReads = (id: string, paymentId: string, statusCode: string) =>
    eventually(
      async () => {
        const order = await orderOf(id);
        const p = order.data.payments.find((x: { paymentId: string }) => x.paymentId === paymentId);
        return p?.statusCode === statusCode ? { order, attempt: p } : undefined;
      },
      15000,
      `attempt ${paymentId} of ${id} at ${statusCode}`,
    );

  it('when A’s late failed arrives for its replaced attempt after failover, then only that attempt changes and B’s success completes the order', async () => {
    const { id, a, b } = await failedOverToSilentB();
    await sandboxCallback(stack.ingest!.url, report(id, a, 'failed'));
    const { order, attempt } = await attemptReads(id, a, '2-07-01');
    expect(attempt).toMatchObject({ provider: 'sandbox', status: 'failed' });
    expect(order).toMatchObject({ status: 'in_progress', statusCode: '1-01-02' });
    await sandboxCallback(stack.ingest!.url, report(id, b, 'success'), 'sandbox-b');
    const completed = await untilStatus(() => orderOf(id), 'completed', `order ${id} completed by B`);
    expect(completed.statusCode).toBe('0-01-00');
  });

  it('when A’s late success arrives for its replaced attempt while B has it, then need_action duplicate_payment 2-07-07 and B’s success does not complete it', async () => {
    const { id, a, b } = await failedOverToSilentB();
    await sandboxCallback(stack.ingest!.url, report(id, a, 'success'));
    const dup = await untilStatus(() => orderOf(id), 'need_action', `order ${id} need_action`);
    expect(dup).toMatchObject({
      statusCode: '2-07-07',
      needAction: { rule: 'duplicate_payment', resolution: { resolvedBy: 'operator' } },
    });
    expect(dup.data.payments).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ paymentId: a, provider: 'sandbox', status: 'success', statusCode: '2-07-07' }),
      ]),
    );
    // B's success shows on its attempt; the order waits for the operator who refunds one payment.
    await sandboxCallback(stack.ingest!.url, report(id, b, 'success'), 'sandbox-b');
    const { order } = await attemptReads(id, b, '2-07-07');
    expect(order).toMatchObject({ status: 'need_action', statusCode: '2-07-07' });
  });

  /** A run of the reconciliation without its grace period (a report just consumed is judged at once), recorded as the backoffice records it. */
  async function reconcileNow(): Promise<ReconciliationRun> {
    const pool = new Pool({ connectionString: stack.databaseUrl, max: 2 });
    try {
      const settings = readReconciliationConfig(
        new EnvReader({ RECONCILIATION_GRACE_SECONDS: '0' }),
        stack.databaseUrl,
      );
      const write = async <T>(work: (q: Query) => Promise<T>): Promise<T> => {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          const out = await work(async (sql, params) => (await client.query(sql, params)).rows);
          await client.query('COMMIT');
          return out;
        } finally {
          client.release();
        }
      };
      return await eventually(
        async () =>
          (await reconcile(pool, write, new ReconciliationRepository('backoffice'), settings, () => new Date())) ??
          undefined,
        15000,
        'a reconciliation run (the lock free)',
      );
    } finally {
      await pool.end();
    }
  }
  /** This order's `replaced_attempt_paid` breaches, found by a run and still open in the backoffice's record. */
  async function paidReplacedOf(paymentIds: string[]): Promise<{ found: string[]; open: string[] }> {
    const subjects = paymentIds.map((p) => `orders.payment_attempts ${p}`);
    const run = await reconcileNow();
    const found = run.results
      .find((r) => r.invariant === 'replaced_attempt_paid')!
      .breaches.filter((b) => subjects.includes(b.subject))
      .map((b) => b.subject);
    const open = await db.query(
      `SELECT subject FROM backoffice.reconciliation_breaches
        WHERE invariant = 'replaced_attempt_paid' AND subject = ANY($1::text[]) AND resolved_at IS NULL`,
      [subjects],
    );
    return { found: found.sort(), open: open.rows.map((r) => r.subject).sort() };
  }
  const attemptRow = async (id: string, paymentId: string) =>
    (
      await db.query(
        `SELECT status, status_code, trim_scale(amount)::text AS amount, currency, created_at, updated_at
           FROM orders.payment_attempts WHERE order_id = $1 AND payment_id = $2`,
        [id, paymentId],
      )
    ).rows[0];
  /** Waits until orders consumed the sandbox callback the provider sent under its event id `providerEventId`. */
  const consumed = (providerEventId: string) =>
    eventually(
      async () =>
        (
          await db.query(`SELECT 1 FROM orders.inbox WHERE event_id = $1::uuid`, [
            callbackEventId('sandbox', providerEventId),
          ])
        ).rows.length === 1 || undefined,
      15000,
      `callback ${providerEventId} consumed by orders`,
    );

  it('when the provider repeats A’s success after an operator resolved its duplicate payment, then nothing changes and no replaced_attempt_paid breach comes back; another replaced attempt’s success still does (decision 350)', async () => {
    const { id, a } = await failedOverToSilentB();
    await sandboxCallback(stack.ingest!.url, report(id, a, 'success'));
    await untilStatus(() => orderOf(id), 'need_action', `order ${id} need_action`);
    // The operator refunded one of the payments at its provider and ends the order.
    const resolved = await ops('POST', `/orders/${id}/resolve`, { action: 'fail', note: 'A refunded at sandbox' });
    expect(resolved.body).toMatchObject({ status: 'failed' });
    const settled = await attemptRow(id, a);
    expect(settled).toMatchObject({ status: 'success', status_code: '2-07-07', amount: '100.99' });
    expect(await paidReplacedOf([a])).toEqual({ found: [], open: [] });

    // Providers send a paid notification again, each time under a new event id of their own.
    const repeated = await sandboxCallback(stack.ingest!.url, report(id, a, 'success'));
    await consumed(repeated);
    // The repeat is kept where callbacks are kept (the audit trail), and changes nothing else.
    const stored = await db.query(
      'SELECT count(*)::int AS n FROM callbacks_ingest.provider_callbacks WHERE provider_event_id = $1',
      [repeated],
    );
    expect(stored.rows[0].n).toBe(1);
    expect(await paidReplacedOf([a])).toEqual({ found: [], open: [] });
    expect(await attemptRow(id, a)).toEqual(settled);
    expect(await orderOf(id)).toMatchObject({ status: 'failed', statusCode: '1-07-03' });

    // A genuinely different report: another replaced attempt of the order (a third acquirer's,
    // seeded as its dispatch row: the route here has two) reported paid. It is recorded and listed.
    const c = `pay_${randomUUID()}`;
    await db.query(
      `INSERT INTO orders.provider_dispatches (payment_id, order_id, provider, amount, currency, status, sends, next_attempt_at, created_at, updated_at)
       SELECT $1, $2, 'sandbox', 100.99, 'USD', 'refused', 1, now(), min(created_at) - interval '1 second', now()
         FROM orders.provider_dispatches WHERE order_id = $2`,
      [c, id],
    );
    await consumed(await sandboxCallback(stack.ingest!.url, report(id, c, 'success')));
    expect(await attemptRow(id, c)).toMatchObject({ status: 'success', status_code: '2-07-07' });
    expect(await attemptRow(id, a)).toEqual(settled);
    const subjectOf = (p: string) => `orders.payment_attempts ${p}`;
    expect(await paidReplacedOf([a, c])).toEqual({ found: [subjectOf(c)], open: [subjectOf(c)] });
  });

  it('when a route sends mastercards to B first, then a mastercard goes to B and a visa to A', async () => {
    await route(
      [{ provider: 'sandbox-b', when: { brands: ['mastercard'] } }, { provider: 'sandbox' }],
      'B for mastercard',
    );
    const master = await paidByCard('5555555555554444');
    const visa = await paidByCard(CARDS.ok);
    await untilStatus(() => orderOf(master), 'completed', `order ${master} completed`);
    await untilStatus(() => orderOf(visa), 'completed', `order ${visa} completed`);
    expect(await dispatches(master)).toEqual([{ provider: 'sandbox-b', status: 'accepted' }]);
    expect(await dispatches(visa)).toEqual([{ provider: 'sandbox', status: 'accepted' }]);
  });

  it('when the route is deleted, then it is gone, audited, and deleting it again is a 404', async () => {
    const del = await ops('DELETE', `/shops/${shop.shopId}/routes/card`, { reason: 'Back to the method’s provider' });
    expect(del.status).toBe(204);
    expect((await ops('GET', `/shops/${shop.shopId}/routes/card`)).status).toBe(404);
    expect((await ops('DELETE', `/shops/${shop.shopId}/routes/card`, { reason: 'again' })).status).toBe(404);
    const audit = (await ops('GET', '/audit?action=orders.route.delete')).body.items;
    expect(audit[audit.length - 1]).toMatchObject({
      reason: 'Back to the method’s provider',
      before: expect.objectContaining({ method: 'card' }),
    });
  });
});
