import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { metricsRegistry } from '@payments/platform';
import { eventually, http } from '@payments/testing';
import { formatReport } from '../../apps/backoffice/src/reconciliation/reconcile';
import { INVARIANTS } from '../../apps/backoffice/src/reconciliation/reconciliation.reads';
import { ReconciliationService } from '../../apps/backoffice/src/reconciliation/reconciliation.service';
import type { BackofficeConfig } from '../../apps/backoffice/src/config';
import { reconciliationFixture } from '../support/reconciliation';
import { opsUrlOf, TEST_OPS_TOKEN, TestStack } from '../support/stack';

/**
 * Issue 17 item 4: the reconciliation over the services' real schemas (migrated by the running
 * services). Rows are seeded with SQL, an hour old, past the grace period; each test seeds one kind
 * of breach and sees it reported, in the report, the ops route and the metric.
 */
describe('reconciliation: the invariants a finance team relies on, across services', () => {
  // A schema of its own whose outbox no relay drains: a stuck outbox without a running service publishing it.
  const STUCK = 'reconciliation_test_outbox';
  const f = reconciliationFixture(STUCK);
  const { shopId, settings, run, breachesOf, aConsistentOrder, anUncreditedOrder, aDelivery } = f;
  let stack: TestStack;
  let db: Pool;
  beforeAll(() => {
    ({ stack, db } = f);
  });

  it('when 10,000 consistent orders are seeded, then a run reports no breach and says what it checked', async () => {
    const started = Date.now();
    await db.query(
      `WITH o AS (
         INSERT INTO orders.orders (id, shop_id, merchant_order_id, status, amount, original_amount, currency, sequence, created_at, updated_at)
         SELECT gen_random_uuid(), $1, 'bench-' || n, CASE WHEN n % 10 = 0 THEN 'partially_refunded' ELSE 'completed' END,
                10 + n % 90, 10 + n % 90, 'USD', 2, now() - interval '2 hours', now() - interval '2 hours'
           FROM generate_series(1, 10000) n RETURNING id, status, amount
       ), d AS (
         INSERT INTO merchant_callbacks.deliveries (id, event_id, type, object_type, object_id, shop_id, sequence, body, status, window_started_at, created_at, updated_at, feed_position)
         SELECT gen_random_uuid(), gen_random_uuid(), 'order.status_changed', 'order', o.id, $1, 2,
                jsonb_build_object('objectId', o.id, 'sequence', 2, 'status', o.status, 'cost', jsonb_build_object('amount', o.amount::text, 'currency', 'USD'))::text,
                'delivered', now() - interval '2 hours', now() - interval '2 hours', now() - interval '2 hours',
                (SELECT COALESCE(max(feed_position), 0) FROM merchant_callbacks.deliveries WHERE shop_id = $1) + row_number() OVER ()
           FROM o
       ), lc AS (
         INSERT INTO ledger.transactions (id, idempotency_key, kind, shop_id, source_type, source_id, operation_currency, gross, net, balance_currency, balance_amount, created_at)
         SELECT gen_random_uuid(), gen_random_uuid()::text, 'order_completed', $1, 'order', o.id::text, 'USD', o.amount, o.amount, 'USD', o.amount, now() - interval '2 hours' FROM o
       ), r AS (
         INSERT INTO orders.refunds (id, order_id, amount, currency, created_at)
         SELECT gen_random_uuid(), o.id, o.amount / 2, 'USD', now() - interval '2 hours' FROM o WHERE o.status = 'partially_refunded'
         RETURNING order_id, amount
       ), lr AS (
         INSERT INTO ledger.transactions (id, idempotency_key, kind, shop_id, source_type, source_id, operation_currency, gross, net, balance_currency, balance_amount, created_at)
         SELECT gen_random_uuid(), gen_random_uuid()::text, 'order_refunded', $1, 'order', r.order_id::text, 'USD', r.amount, r.amount, 'USD', -r.amount, now() - interval '2 hours' FROM r
       ), pd AS (
         INSERT INTO orders.provider_dispatches (payment_id, order_id, provider, amount, currency, status, sends, next_attempt_at, created_at, updated_at)
         SELECT 'pay_' || o.id, o.id, 'sandbox', o.amount, 'USD', 'accepted', 1, now(), now() - interval '2 hours', now() - interval '2 hours' FROM o
       ), pc AS (
         INSERT INTO callbacks_ingest.provider_callbacks (id, provider_code, provider_event_id, reference, raw_body, signature_timestamp, received_at)
         SELECT gen_random_uuid(), 'sandbox', 'evt-' || o.id, o.id::text, '{}', 0, now() - interval '2 hours' FROM o RETURNING id
       )
       INSERT INTO orders.inbox (consumer, event_id) SELECT 'orders', id FROM pc`,
      [shopId],
    );
    const seeded = (Date.now() - started) / 1000;
    const result = await run();
    const seconds = (result.finishedAt.getTime() - result.startedAt.getTime()) / 1000;
    process.stdout.write(
      `\nreconciliation over 10,000 seeded orders: seeded in ${seeded.toFixed(1)} s, run took ${seconds.toFixed(2)} s\n${formatReport(result)}\n`,
    );
    expect(result.results.flatMap((r) => r.breaches)).toEqual([]);
    const checked = Object.fromEntries(result.results.map((r) => [r.invariant, r.checked]));
    expect(checked).toMatchObject({
      refunds_within_accepted: 1000,
      final_status_called_back: 10000,
      provider_callback_applied: 10000,
      attempt_answered: 10000,
      ledger_order_credited: 10000,
      ledger_refund_debited: 1000,
    });
    expect(formatReport(result)).toContain('Reconciliation clean: no breach');
  }, 180_000);

  it('when refunds add up to more than the accepted amount, then it is a breach of refunds_within_accepted', async () => {
    const id = await aConsistentOrder('100.00', 'partially_refunded');
    for (const amount of ['60.00', '40.01'])
      await db.query(
        `INSERT INTO orders.refunds (id, order_id, amount, currency, created_at) VALUES ($1, $2, $3, 'USD', now() - interval '30 minutes')`,
        [randomUUID(), id, amount],
      );
    const result = await run();
    expect(breachesOf(result, 'refunds_within_accepted')).toEqual([
      {
        invariant: 'refunds_within_accepted',
        subject: `orders.orders ${id}`,
        detail: expect.stringMatching(/2 refund\(s\) add up to 100\.01\d* USD, more than the accepted 100 USD/),
        since: expect.any(Date),
      },
    ]);
    // The operator reads it on the ops route, and Prometheus on the metric.
    const listed = await http(
      'GET',
      `${opsUrlOf(stack.gateway!.url)}/ops/v1/reconciliation/breaches?invariant=refunds_within_accepted`,
      {
        token: TEST_OPS_TOKEN,
      },
    );
    expect(listed.status).toBe(200);
    expect(listed.body.breaches).toEqual([expect.objectContaining({ subject: `orders.orders ${id}` })]);
    expect(listed.body.lastRun).toMatchObject({ breaches: expect.any(Number), checked: expect.any(Object) });
    const metrics = await http('GET', `${stack.backoffice!.url}/metrics`);
    expect(metrics.text).toMatch(/payments_reconciliation_breaches\{invariant="refunds_within_accepted"\} 1\b/);
  });

  it('when a final status has no merchant callback, or its callback failed past the retry window, then it is a breach of final_status_called_back', async () => {
    const missing = randomUUID();
    await db.query(
      `INSERT INTO orders.orders (id, shop_id, merchant_order_id, status, amount, original_amount, currency, sequence, created_at, updated_at)
       VALUES ($1, $2, $3, 'failed', 5, 5, 'USD', 2, now() - interval '1 hour', now() - interval '1 hour')`,
      [missing, shopId, `m-${missing}`],
    );
    const gaveUp = await aConsistentOrder('7.00');
    await db.query(
      `UPDATE merchant_callbacks.deliveries SET status = 'failed', last_error = 'HTTP 500' WHERE object_id = $1`,
      [gaveUp],
    );
    const retrying = await aConsistentOrder('8.00');
    await db.query(`UPDATE merchant_callbacks.deliveries SET status = 'pending' WHERE object_id = $1`, [retrying]);
    const subjects = breachesOf(await run(), 'final_status_called_back').map((b) => [b.subject, b.detail]);
    expect(subjects).toEqual(
      expect.arrayContaining([
        [`orders.orders ${missing} #2`, 'order is failed but merchant-callbacks has no callback for it'],
        [`orders.orders ${gaveUp} #2`, expect.stringContaining('failed after the retry window (HTTP 500)')],
      ]),
    );
    expect(subjects.map(([s]) => s)).not.toContain(`orders.orders ${retrying} #2`);
  });

  it('when a stored provider callback was never applied, then it is a breach of provider_callback_applied; one for an unknown reference is explained', async () => {
    const order = await aConsistentOrder('9.00');
    const lost = randomUUID();
    const unknown = randomUUID();
    for (const [id, reference] of [
      [lost, order],
      [unknown, 'no-such-order'],
    ])
      await db.query(
        `INSERT INTO callbacks_ingest.provider_callbacks (id, provider_code, provider_event_id, reference, raw_body, signature_timestamp, received_at)
         VALUES ($1, 'sandbox', $2, $3, '{}', 0, now() - interval '1 hour')`,
        [id, `evt-${id}`, reference],
      );
    const subjects = breachesOf(await run(), 'provider_callback_applied').map((b) => b.subject);
    expect(subjects).toContain(`callbacks_ingest.provider_callbacks ${lost}`);
    expect(subjects).not.toContain(`callbacks_ingest.provider_callbacks ${unknown}`);
  });

  it('when a callback is older than the look-back, it is not judged; an inbox row of another consumer does not apply it', async () => {
    const order = await aConsistentOrder('9.50');
    const old = randomUUID();
    const elsewhere = randomUUID();
    for (const [id, age] of [
      [old, '40 days'],
      [elsewhere, '1 hour'],
    ])
      await db.query(
        `INSERT INTO callbacks_ingest.provider_callbacks (id, provider_code, provider_event_id, reference, raw_body, signature_timestamp, received_at)
         VALUES ($1, 'sandbox', $2, $3, '{}', 0, now() - $4::interval)`,
        [id, `evt-${id}`, order.toUpperCase(), age],
      );
    await db.query(`INSERT INTO orders.inbox (consumer, event_id) VALUES ('not-the-orders-consumer', $1)`, [elsewhere]);
    const subjects = breachesOf(await run(), 'provider_callback_applied').map((b) => b.subject);
    expect(subjects).toContain(`callbacks_ingest.provider_callbacks ${elsewhere}`);
    expect(subjects).not.toContain(`callbacks_ingest.provider_callbacks ${old}`);
  });

  it('when an outbox row waits unpublished past the threshold, then it is a breach of outbox_not_stuck', async () => {
    await db.query(
      `INSERT INTO ${STUCK}.outbox (topic, key, event_id, envelope, created_at) VALUES ('orders.events', 'k', $1, '{}', now() - interval '1 hour')`,
      [randomUUID()],
    );
    expect(breachesOf(await run(), 'outbox_not_stuck')).toEqual([
      expect.objectContaining({ subject: `${STUCK}.outbox`, detail: expect.stringContaining('1 row(s) unpublished') }),
    ]);
  });

  it('when an attempt timed out but its order is not in need_action and no answer came, then it is a breach of attempt_answered', async () => {
    const id = randomUUID();
    await db.query(
      `INSERT INTO orders.orders (id, shop_id, merchant_order_id, status, amount, original_amount, currency, sequence, created_at, updated_at)
       VALUES ($1, $2, $3, 'in_progress', 3, 3, 'USD', 2, now() - interval '1 hour', now() - interval '1 hour')`,
      [id, shopId, `m-${id}`],
    );
    await aDelivery(id, 2, 'in_progress', '3.00', 'delivered');
    await db.query(
      `INSERT INTO orders.provider_dispatches (payment_id, order_id, provider, amount, currency, status, sends, next_attempt_at, created_at, updated_at)
       VALUES ($1, $2, 'sandbox', 3, 'USD', 'timed_out', 1, now(), now() - interval '1 hour', now() - interval '1 hour')`,
      [`pay_${id}`, id],
    );
    expect(breachesOf(await run(), 'attempt_answered')).toEqual([
      expect.objectContaining({
        subject: `orders.provider_dispatches pay_${id}`,
        detail: expect.stringContaining('is in_progress, not need_action'),
      }),
    ]);
  });

  it('when a replaced attempt is reported paid after its order was final, then it is a breach of replaced_attempt_paid, also after a refund; one an operator settled since is not', async () => {
    const attempt = (orderId: string, paymentId: string, status: string, code: string, updatedAgo: string) =>
      db.query(
        `INSERT INTO orders.payment_attempts (order_id, payment_id, provider, status, amount, currency, status_code, created_at, updated_at)
         VALUES ($1, $2, 'sandbox', $3, 7, 'USD', $4, now() - interval '3 hours', now() - $5::interval)`,
        [orderId, paymentId, status, code, updatedAgo],
      );
    // Failed an hour ago (B declined); A's success for its replaced attempt came half an hour later.
    const failed = await anUncreditedOrder('7.00', 'failed');
    await attempt(failed, `pay_a_${failed}`, 'success', '2-07-07', '30 minutes');
    await attempt(failed, `pay_b_${failed}`, 'failed', '2-07-01', '1 hour');
    // In need_action duplicate_payment two hours ago, settled by an operator an hour ago: not listed.
    const settled = await aConsistentOrder('7.00', 'completed');
    await attempt(settled, `pay_a_${settled}`, 'success', '2-07-07', '2 hours');
    await attempt(settled, `pay_b_${settled}`, 'success', '0-01-00', '2 hours');
    await db.query(`UPDATE orders.orders SET resolved_by = $2::jsonb WHERE id = $1`, [
      settled,
      JSON.stringify({ id: 'op-1', name: 'An operator', role: 'operator' }),
    ]);
    // Completed by B; A's success came two hours ago; the merchant refunded B's payment an hour
    // ago. The refund moved the order, but settled nothing of A's money: still listed.
    const refunded = await anUncreditedOrder('7.00', 'refunded');
    await attempt(refunded, `pay_a_${refunded}`, 'success', '2-07-07', '2 hours');
    await attempt(refunded, `pay_b_${refunded}`, 'success', '0-01-00', '3 hours');
    const found = breachesOf(await run(), 'replaced_attempt_paid');
    expect(found.map((b) => b.subject).sort()).toEqual(
      [`orders.payment_attempts pay_a_${failed}`, `orders.payment_attempts pay_a_${refunded}`].sort(),
    );
    expect(found).toContainEqual(
      expect.objectContaining({
        subject: `orders.payment_attempts pay_a_${failed}`,
        detail: expect.stringContaining(
          `replaced attempt pay_a_${failed} of order ${failed}, which was already failed`,
        ),
      }),
    );
  });

  it('when the events sent for a shop and day say another amount than the orders, then it is a breach of daily_totals_match', async () => {
    const shop = randomUUID();
    const id = randomUUID();
    await db.query(
      `INSERT INTO orders.orders (id, shop_id, merchant_order_id, status, amount, original_amount, currency, sequence, created_at, updated_at)
       VALUES ($1, $2, 'm-drift', 'completed', 100, 100, 'USD', 2, now() - interval '1 hour', now() - interval '1 hour')`,
      [id, shop],
    );
    await db.query(
      `INSERT INTO merchant_callbacks.deliveries (id, event_id, type, object_type, object_id, shop_id, sequence, body, status, window_started_at, created_at, updated_at, feed_position)
       VALUES ($1, $2, 'order.status_changed', 'order', $3, $4, 2, $5, 'delivered', now(), now(), now(),
               (SELECT COALESCE(max(feed_position), 0) + 1 FROM merchant_callbacks.deliveries WHERE shop_id = $4))`,
      [randomUUID(), randomUUID(), id, shop, JSON.stringify({ status: 'completed', cost: { amount: '90.00' } })],
    );
    const found = breachesOf(await run(), 'daily_totals_match').filter((b) => b.subject.startsWith(`shop ${shop}`));
    expect(found).toEqual([
      expect.objectContaining({
        subject: expect.stringMatching(new RegExp(`^shop ${shop} \\d{4}-\\d{2}-\\d{2} completed$`)),
        detail: expect.stringMatching(/^orders: 1 for 100(\.0+)?; events sent: 1 for 90(\.0+)?$/),
      }),
    ]);
  });

  it('when a breach is no longer found, then the next run resolves it and the report says which invariants still fail', async () => {
    await db.query(`UPDATE ${STUCK}.outbox SET published_at = now()`);
    const result = await run();
    expect(breachesOf(result, 'outbox_not_stuck')).toEqual([]);
    const listed = await http(
      'GET',
      `${opsUrlOf(stack.gateway!.url)}/ops/v1/reconciliation/breaches?invariant=outbox_not_stuck`,
      {
        token: TEST_OPS_TOKEN,
      },
    );
    expect(listed.body.breaches).toEqual([]);
    expect(formatReport(result)).toMatch(/^Reconciliation found \d+ breach\(es\)/);
  });

  /** The job's logger, captured: these tests seed breaches on purpose, and assert what is logged. */
  const quietLogger = () => ({ warn: jest.fn(), log: jest.fn(), error: jest.fn() });

  it('when the backoffice job runs on its interval, then it records each run with what it checked and found, and warns of new breaches once', async () => {
    const dataSource = await new DataSource({
      type: 'postgres',
      url: stack.databaseUrl,
      schema: 'backoffice',
    }).initialize();
    const config = { schema: 'backoffice', reconciliation: { ...settings(), intervalMs: 200 } } as BackofficeConfig;
    const service = new ReconciliationService(dataSource, config);
    const logger = quietLogger();
    Object.assign(service, { logger });
    const runs = async () =>
      (await db.query('SELECT count(*)::int AS n FROM backoffice.reconciliation_runs')).rows[0].n;
    const before = await runs();
    try {
      service.onApplicationBootstrap();
      await eventually(async () => ((await runs()) >= before + 2 ? true : undefined), 15000, 'two runs of the job');
    } finally {
      await service.onApplicationShutdown();
      await dataSource.destroy();
    }
    // The seeded breaches are open: the first run warns of them, the next (the same ones) do not.
    const reports = (calls: unknown[][]) => calls.filter(([line]) => String(line).startsWith('Reconciliation found'));
    expect(reports(logger.warn.mock.calls)).toHaveLength(1);
    expect(reports(logger.log.mock.calls).length).toBeGreaterThanOrEqual(1);
    const [last] = (
      await db.query('SELECT breaches, checked FROM backoffice.reconciliation_runs ORDER BY id DESC LIMIT 1')
    ).rows;
    expect(last.breaches).toBeGreaterThan(0);
    expect(Object.keys(last.checked).sort()).toEqual([...INVARIANTS].sort());
  });

  it('when a run cannot read a table, then it counts a failed run and the last-success timestamp does not advance', async () => {
    const dataSource = await new DataSource({
      type: 'postgres',
      url: stack.databaseUrl,
      schema: 'backoffice',
    }).initialize();
    const good = { schema: 'backoffice', reconciliation: { ...settings(), intervalMs: 0 } } as BackofficeConfig;
    const cannotRead = {
      schema: 'backoffice',
      // what the backoffice meets when its reconciliation role lacks a grant: a read that fails
      reconciliation: { ...good.reconciliation, schemas: { ...good.reconciliation.schemas, orders: 'not_readable' } },
    } as BackofficeConfig;
    const metric = async (name: string) => {
      const [family] = (await metricsRegistry.getMetricsAsJSON()).filter((m) => m.name === name);
      return family?.values[0]?.value ?? null;
    };
    const service = new ReconciliationService(dataSource, good);
    const failing = new ReconciliationService(dataSource, cannotRead);
    const logger = quietLogger();
    Object.assign(service, { logger: quietLogger() });
    Object.assign(failing, { logger });
    try {
      service.onApplicationBootstrap();
      await service.runReported();
      const lastGood = await metric('payments_reconciliation_last_success_timestamp_seconds');
      const failedBefore = (await metric('payments_reconciliation_failed_runs_total')) ?? 0;
      expect(lastGood).toBeGreaterThan(Date.now() / 1000 - 60);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      await failing.runReported();
      expect(await metric('payments_reconciliation_failed_runs_total')).toBe(failedBefore + 1);
      expect(await metric('payments_reconciliation_last_success_timestamp_seconds')).toBe(lastGood);
      expect(logger.error.mock.calls.map(([line]) => String(line))).toEqual([
        expect.stringMatching(/^run failed, next in 0 ms: relation "not_readable\.\w+" does not exist$/),
      ]);
    } finally {
      await failing.onApplicationShutdown();
      await service.onApplicationShutdown();
      await dataSource.destroy();
    }
  });
});
