import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { messagingTablesDdl, opsMessagingViewsDdl } from '@payments/messaging';
import { EnvReader } from '@payments/platform';
import { reconcile, ReconciliationRun } from '../../apps/backoffice/src/reconciliation/reconcile';
import { readReconciliationConfig } from '../../apps/backoffice/src/reconciliation/reconciliation.config';
import { Invariant } from '../../apps/backoffice/src/reconciliation/reconciliation.reads';
import { ReconciliationRepository } from '../../apps/backoffice/src/reconciliation/reconciliation.repository';
import { TestStack } from './stack';

/**
 * The reconciliation's specs' system (issue 17 item 4): the services that own the schemas it reads,
 * started and stopped around the describe that calls this, a pool on their database, a run of the
 * reconciliation, and the rows its specs seed (an hour old, past the grace period). With `stuck`,
 * a schema of that name with an outbox no relay drains, among the outbox schemas checked.
 */
export function reconciliationFixture(stuck?: string) {
  let stack!: TestStack;
  let db!: Pool;
  const shopId = randomUUID();
  const extra = stuck ? [stuck] : [];

  beforeAll(async () => {
    stack = await TestStack.start({
      services: ['gateway', 'orders', 'callbacks-ingest', 'merchant-callbacks', 'payouts', 'p2p', 'ledger'],
      extraEnv: { RECONCILIATION_INTERVAL_MS: '0', ORDERS_SWEEP_INTERVAL_MS: '0' },
    });
    db = new Pool({ connectionString: stack.databaseUrl, max: 2 });
    if (!stuck) return;
    await db.query(`CREATE SCHEMA ${stuck}`);
    // and its view, as a service's migration makes it (decision 300): the reconciliation reads that
    for (const sql of [...messagingTablesDdl(stuck), ...opsMessagingViewsDdl(stuck, { inbox: false })])
      await db.query(sql);
  });

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  }, 120_000);

  const settings = () =>
    readReconciliationConfig(
      new EnvReader({
        RECONCILIATION_OUTBOX_SCHEMAS: ['gateway,orders,payouts,p2p,callbacks_ingest', ...extra].join(','),
      }),
      stack.databaseUrl,
    );

  async function run(): Promise<ReconciliationRun> {
    const repository = new ReconciliationRepository('backoffice');
    const result = await reconcile(
      db,
      async (work) => {
        const client = await db.connect();
        try {
          await client.query('BEGIN');
          const out = await work(async (sql, params) => (await client.query(sql, params)).rows);
          await client.query('COMMIT');
          return out;
        } finally {
          client.release();
        }
      },
      repository,
      settings(),
      () => new Date(),
    );
    if (!result) throw new Error('the reconciliation lock was held');
    return result;
  }

  const breachesOf = (r: ReconciliationRun, invariant: Invariant) =>
    r.results.find((x) => x.invariant === invariant)!.breaches;

  /** A completed order, its callback delivered with the same status and amount, its credit in the ledger: consistent. */
  async function aConsistentOrder(amount = '100.00', status = 'completed'): Promise<string> {
    const id = await anUncreditedOrder(amount, status);
    await aLedgerTransaction('order_completed', id, amount);
    return id;
  }

  /** A completed order and its callback, but no credit in the ledger. */
  async function anUncreditedOrder(amount: string, status = 'completed'): Promise<string> {
    const id = randomUUID();
    await db.query(
      `INSERT INTO orders.orders (id, shop_id, merchant_order_id, status, amount, original_amount, currency, sequence, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $5, 'USD', 2, now() - interval '1 hour', now() - interval '1 hour')`,
      [id, shopId, `m-${id}`, status, amount],
    );
    await aDelivery(id, 2, status, amount, 'delivered');
    return id;
  }

  /** A ledger transaction of an order, as the ledger books it (no postings: balanced by definition). */
  async function aLedgerTransaction(kind: string, orderId: string, amount: string, status = 'posted'): Promise<string> {
    const id = randomUUID();
    await db.query(
      `INSERT INTO ledger.transactions (id, idempotency_key, kind, status, shop_id, source_type, source_id, operation_currency, gross, net, balance_currency, balance_amount, created_at)
       VALUES ($1, $2, $3, $4, $5, 'order', $6, 'USD', $7, $7, 'USD', $7, now() - interval '1 hour')`,
      [id, `seeded:${id}`, kind, status, shopId, orderId, amount],
    );
    return id;
  }

  async function aDelivery(orderId: string, sequence: number, status: string, amount: string, state: string) {
    const body = { type: 'order.status_changed', objectType: 'order', objectId: orderId, shopId, sequence, status };
    await db.query(
      `INSERT INTO merchant_callbacks.deliveries (id, event_id, type, object_type, object_id, shop_id, sequence, body, status, window_started_at, created_at, updated_at, feed_position)
       VALUES ($1, $2, 'order.status_changed', 'order', $3, $4, $5, $6, $7, now() - interval '1 hour', now() - interval '1 hour', now() - interval '1 hour',
               (SELECT COALESCE(max(feed_position), 0) + 1 FROM merchant_callbacks.deliveries WHERE shop_id = $4))`,
      [
        randomUUID(),
        randomUUID(),
        orderId,
        shopId,
        sequence,
        JSON.stringify({ ...body, cost: { amount, currency: 'USD' } }),
        state,
      ],
    );
  }

  return {
    get stack() {
      return stack;
    },
    get db() {
      return db;
    },
    shopId,
    settings,
    run,
    breachesOf,
    aConsistentOrder,
    anUncreditedOrder,
    aLedgerTransaction,
    aDelivery,
  };
}
