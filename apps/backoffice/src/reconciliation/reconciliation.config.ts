import { EnvReader } from '@payments/platform';
import type { CheckSettings } from './reconciliation.reads';

export interface ReconciliationConfig extends CheckSettings {
  /**
   * The connection the checks read through: its own, so that the one-role-per-service work can
   * give the reconciliation a read-only role on reconciliationReads() alone (decision 106).
   */
  databaseUrl: string;
  /** How often the backoffice runs the checks; 0 turns the continuous job off (`npm run reconcile` still works). */
  intervalMs: number;
}

/** Read once at boot, by the backoffice and by `npm run reconcile`. */
export function readReconciliationConfig(env: EnvReader, databaseUrl: string): ReconciliationConfig {
  return {
    databaseUrl: env.string('RECONCILIATION_DATABASE_URL', databaseUrl),
    intervalMs: env.int('RECONCILIATION_INTERVAL_MS', 300_000, { min: 0, max: 86_400_000 }),
    graceSeconds: env.int('RECONCILIATION_GRACE_SECONDS', 300, { min: 0, max: 86_400 }),
    outboxMaxAgeSeconds: env.int('RECONCILIATION_OUTBOX_MAX_AGE_SECONDS', 300, { min: 1, max: 86_400 }),
    // At most the merchant-callbacks feed's shortest retention (30 days): older deliveries may be purged.
    lookbackDays: env.int('RECONCILIATION_LOOKBACK_DAYS', 30, { min: 1, max: 30 }),
    schemas: {
      orders: env.string('ORDERS_DB_SCHEMA', 'orders'),
      payouts: env.string('PAYOUTS_DB_SCHEMA', 'payouts'),
      p2p: env.string('P2P_DB_SCHEMA', 'p2p'),
      callbacksIngest: env.string('CALLBACKS_INGEST_DB_SCHEMA', 'callbacks_ingest'),
      merchantCallbacks: env.string('MERCHANT_CALLBACKS_DB_SCHEMA', 'merchant_callbacks'),
      ledger: env.string('LEDGER_DB_SCHEMA', 'ledger'),
      outboxes: env
        .string('RECONCILIATION_OUTBOX_SCHEMAS', 'gateway,orders,payouts,p2p,callbacks_ingest,ledger')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
      consumers: {
        orders: env.string('ORDERS_CONSUMER_GROUP', 'orders'),
        payouts: env.string('PAYOUTS_CONSUMER_GROUP', 'payouts'),
        p2p: env.string('P2P_CONSUMER_GROUP', 'p2p'),
      },
    },
  };
}
