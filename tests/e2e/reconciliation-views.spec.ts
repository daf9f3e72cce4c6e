import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { Client, Pool } from 'pg';
import { EnvReader, openServiceDatabase } from '@payments/platform';
import { asRole, createTestDatabase, DB_ROLES_SQL, ensureDbRoles, runSql } from '@payments/testing';
import type { BackofficeConfig } from '../../apps/backoffice/src/config';
import { OverviewService } from '../../apps/backoffice/src/overview/overview.service';
import { ProvidersService } from '../../apps/backoffice/src/overview/providers.service';
import type { ServiceHealthCollector } from '../../apps/backoffice/src/overview/service-health.collector';
import { readReconciliationConfig } from '../../apps/backoffice/src/reconciliation/reconciliation.config';
import {
  INVARIANTS,
  reconciliationReads,
  runChecks,
} from '../../apps/backoffice/src/reconciliation/reconciliation.reads';
import { CALLBACKS_INGEST_MIGRATIONS } from '../../apps/callbacks-ingest/src/migrations';
import { GATEWAY_MIGRATIONS } from '../../apps/gateway/src/migrations';
import { LEDGER_MIGRATIONS } from '../../apps/ledger/src/migrations';
import { MERCHANT_CALLBACKS_MIGRATIONS } from '../../apps/merchant-callbacks/src/migrations';
import { ORDERS_MIGRATIONS } from '../../apps/orders/src/migrations';
import { p2pKind } from '../../apps/p2p/src/p2p.kind';
import { payoutKind } from '../../apps/payouts/src/payout.kind';

/**
 * Issue 28 item 1, decision 300: the backoffice reads the other services' data only through the
 * operator views each service makes and grants in its own migration. A PostgreSQL set up as in a
 * cluster (k8s/infra/db-roles.sql, each service's migrations run as its own role): the
 * reconciliation's role reads every view of reconciliationReads(), runs every check and the
 * overview through them, and is refused on every table under them.
 */
describe('the reconciliation reads the services through the views they own and grant', () => {
  let db: { url: string; drop(): Promise<void> };
  let reader: string;
  const { schemas } = readReconciliationConfig(new EnvReader({}), 'postgres://unused');
  const views = reconciliationReads(schemas);

  /** Each service's first start, as its own role: its migrations make and grant its views. */
  const services = [
    { role: 'payments_gateway', schema: 'gateway', migrations: GATEWAY_MIGRATIONS },
    { role: 'payments_orders', schema: 'orders', migrations: ORDERS_MIGRATIONS },
    { role: 'payments_payouts', schema: 'payouts', migrations: payoutKind.migrations },
    { role: 'payments_p2p', schema: 'p2p', migrations: p2pKind.migrations },
    { role: 'payments_callbacks_ingest', schema: 'callbacks_ingest', migrations: CALLBACKS_INGEST_MIGRATIONS },
    { role: 'payments_merchant_callbacks', schema: 'merchant_callbacks', migrations: MERCHANT_CALLBACKS_MIGRATIONS },
    { role: 'payments_ledger', schema: 'ledger', migrations: LEDGER_MIGRATIONS },
  ];

  /** The tables under the views, as PostgreSQL records them (what each view reads with its owner's rights). */
  const tablesUnder = async () =>
    runSql<{ view: string; table: string }>(
      db.url,
      `SELECT DISTINCT view_schema || '.' || view_name AS view, table_schema || '.' || table_name AS table
         FROM information_schema.view_table_usage
        WHERE view_schema || '.' || view_name = ANY('{${views.join(',')}}'::text[]) ORDER BY 1, 2`,
    );

  const readsEach = async () => {
    for (const view of views) {
      const rows = await runSql<{ n: number }>(reader, `SELECT count(*)::int AS n FROM ${view}`);
      expect({ view, rows }).toEqual({ view, rows: [{ n: expect.any(Number) }] });
    }
  };

  const refusedEach = async () => {
    const under = await tablesUnder();
    // every view reads a table
    expect(new Set(under.map((u) => u.view))).toEqual(new Set(views));
    for (const table of new Set(under.map((u) => u.table))) {
      const [schema, name] = table.split('.');
      await expect(runSql(reader, `SELECT 1 FROM ${table} LIMIT 1`)).rejects.toThrow(
        `permission denied for table ${name}`,
      );
      expect(schema).not.toBe('');
    }
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    await ensureDbRoles(db.url);
    await runSql(db.url, DB_ROLES_SQL); // the schemas and roles, before any service started
    for (const s of services) {
      const started = await openServiceDatabase({
        url: asRole(db.url, s.role),
        schema: s.schema,
        entities: [],
        migrations: s.migrations,
        poolSize: 1,
      });
      await started.destroy();
    }
    reader = asRole(db.url, 'payments_reconciliation');
  }, 120_000);

  afterAll(async () => {
    await db?.drop();
  });

  it('when the services have migrated as their roles, then each view is owned by its service and granted by it', async () => {
    const owners = await runSql<{ view: string; owner: string }>(
      db.url,
      `SELECT n.nspname || '.' || c.relname AS view, pg_get_userbyid(c.relowner) AS owner
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind = 'v' AND n.nspname || '.' || c.relname = ANY('{${views.join(',')}}'::text[])`,
    );
    expect(owners.length).toBe(views.length);
    for (const { view, owner } of owners)
      expect({ view, owner }).toEqual({ view, owner: `payments_${view.split('.')[0]}` });
    // before the Job runs again: the owners' own grants are enough
    await readsEach();
  });

  it('when the reconciliation reads as its role, then it is refused on every table under the views', async () => {
    await refusedEach();
  });

  it('when the views are read, then they show only the columns the reconciliation and the overview use', async () => {
    const columns = await runSql<{ view: string; columns: string[] }>(
      db.url,
      `SELECT table_schema || '.' || table_name AS view, array_agg(column_name::text ORDER BY ordinal_position) AS columns
         FROM information_schema.columns WHERE table_schema || '.' || table_name = ANY('{${views.join(',')}}'::text[])
        GROUP BY 1`,
    );
    const dispatch = ['provider', 'status', 'sends', 'provider_payment_id', 'last_error', 'created_at', 'updated_at'];
    // Each send's answer and duration, for the Providers panel (decision 329).
    const sends = ['send_answers', 'send_ms', 'last_sent_at', 'last_error_at'];
    const outbox = ['id', 'created_at'];
    expect(Object.fromEntries(columns.map((c) => [c.view, c.columns]))).toEqual({
      'orders.ops_orders': [
        'id',
        'shop_id',
        'status',
        'amount',
        'currency',
        'sequence',
        'created_at',
        'updated_at',
        // Whether an operator resolved it (decision 343: replaced_attempt_paid); never who.
        'resolved_by_operator',
      ],
      'orders.ops_refunds': ['order_id', 'amount', 'created_at'],
      'orders.ops_provider_dispatches': [
        'payment_id',
        'order_id',
        'status',
        'sends',
        'updated_at',
        'provider',
        'created_at',
        ...sends,
      ],
      'orders.ops_payment_attempts': [
        'order_id',
        'payment_id',
        'status',
        'provider',
        'created_at',
        'updated_at',
        // What a paid replaced attempt reported (decision 343: replaced_attempt_paid).
        'status_code',
        'amount',
        'currency',
      ],
      'orders.ops_shop_routes': ['shop_id', 'method', 'providers', 'updated_at'],
      'orders.ops_inbox': ['consumer', 'event_id'],
      'orders.ops_outbox_unpublished': outbox,
      'payouts.ops_payouts': ['id', 'status', 'sequence', 'updated_at'],
      'payouts.ops_provider_dispatches': ['dispatch_id', 'payout_id', ...dispatch, ...sends],
      'payouts.ops_inbox': ['consumer', 'event_id'],
      'payouts.ops_outbox_unpublished': outbox,
      'p2p.ops_transactions': ['id', 'status', 'sequence', 'updated_at'],
      'p2p.ops_provider_dispatches': ['dispatch_id', 'p2p_id', ...dispatch, ...sends],
      'p2p.ops_inbox': ['consumer', 'event_id'],
      'p2p.ops_outbox_unpublished': outbox,
      'callbacks_ingest.ops_provider_callbacks': [
        'id',
        'provider_code',
        'provider_event_id',
        'reference',
        'received_at',
      ],
      'callbacks_ingest.ops_outbox_unpublished': outbox,
      'merchant_callbacks.ops_deliveries': [
        'object_type',
        'object_id',
        'sequence',
        'status',
        'window_started_at',
        'last_error',
        'sent_status',
        'sent_amount',
      ],
      'gateway.ops_outbox_unpublished': outbox,
      'ledger.ops_accounts': ['key', 'kind', 'balance'],
      'ledger.ops_outbox_unpublished': outbox,
      'ledger.ops_postings': ['transaction_id', 'account_key', 'currency', 'amount'],
      // settled_credits: the books' credit_settled_twice check (decision 351)
      'ledger.ops_transactions': ['id', 'kind', 'source_id', 'gross', 'created_at', 'settled_credits'],
      'ledger.ops_holds': ['payout_id', 'status'],
      'ledger.ops_awaiting_rates': [
        'transaction_id',
        'shop_id',
        'order_id',
        'order_currency',
        'balance_currency',
        'amount',
        'created_at',
        'parked',
      ],
    });
  });

  it('when the reconciliation and the overview run as its role, then every check and every figure reads through the views', async () => {
    const pool = new Pool({ connectionString: reader, max: 1 });
    try {
      const results = await runChecks(pool, {
        schemas,
        graceSeconds: 300,
        outboxMaxAgeSeconds: 300,
        lookbackDays: 30,
      });
      expect(results.map((r) => r.invariant)).toEqual([...INVARIANTS]);
    } finally {
      await pool.end();
    }
    const config = { reconciliation: { databaseUrl: reader, schemas } } as BackofficeConfig;
    const overview = new OverviewService(config, { instances: () => [] } as unknown as ServiceHealthCollector);
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const o = await overview.overview();
      expect(o.outboxes.map((b) => b.schema)).toEqual(schemas.outboxes);
      expect(o.merchantCallbacks).toEqual({ pending: 0, failed: 0, last15m: [0] });
      expect(await overview.transferAttempts('payouts', randomUUID())).toEqual([]);
      expect(await overview.transferAttempts('p2p', randomUUID())).toEqual([]);
      const providers = await new ProvidersService(config).report();
      expect(providers).toMatchObject({ unavailable: [], routesUnavailable: false });
      expect(warn).not.toHaveBeenCalled(); // no figure left out
    } finally {
      warn.mockRestore();
      await overview.onApplicationShutdown();
    }
  });

  it('when a view is read with a filter, then the planner inlines it onto the table and its index', async () => {
    const client = new Client({ connectionString: reader });
    await client.connect();
    try {
      await client.query('SET enable_seqscan = off'); // an empty table: ask for the plan a full one gets
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN SELECT status FROM orders.ops_orders WHERE id = $1`,
        [randomUUID()],
      );
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(plan).toMatch(/Index Scan using orders_pkey on orders/);
      expect(plan).not.toMatch(/Subquery Scan|ops_orders/);
    } finally {
      await client.end();
    }
  });

  it('when the Job runs again after the services started, then the role still reads the views and no table', async () => {
    await runSql(db.url, DB_ROLES_SQL);
    await readsEach();
    await refusedEach();
  });
});
