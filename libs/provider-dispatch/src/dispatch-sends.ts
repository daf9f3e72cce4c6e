import { grantOpsViewsSql } from '@payments/platform';

/**
 * The columns that keep each send's answer and duration on its dispatch row (decision 329), for
 * the console's Providers panel: one element per recorded send, in order, appended by the same
 * statement that records the outcome (no statement more per send). `last_sent_at` places the
 * row's sends in a window (indexed); `last_error_at` is the time of its last send that was not
 * accepted.
 */
export function dispatchSendsDdl(schema: string, table: string): string[] {
  const t = `"${schema}".${table}`;
  return [
    `ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS send_answers text[] NOT NULL DEFAULT '{}',
       ADD COLUMN IF NOT EXISTS send_ms int[] NOT NULL DEFAULT '{}',
       ADD COLUMN IF NOT EXISTS last_sent_at timestamptz,
       ADD COLUMN IF NOT EXISTS last_error_at timestamptz`,
    `CREATE INDEX IF NOT EXISTS ${table}_last_sent ON ${t} (last_sent_at) WHERE last_sent_at IS NOT NULL`,
  ];
}

/**
 * A payouts' or P2P schema's migration of decision 329: the send columns, and its
 * `ops_provider_dispatches` view (columns as decision 300 made them, `reference` being
 * `payout_id` or `p2p_id`) with them at the end. `down` puts the view and table back.
 */
export function transferSendsMigrationSql(schema: string, reference: string): { up: string[]; down: string[] } {
  const s = `"${schema}"`;
  const view = (extra: string) => `CREATE VIEW ${s}.ops_provider_dispatches AS
      SELECT dispatch_id, ${reference}, provider, status, sends, provider_payment_id, last_error, created_at, updated_at${extra}
        FROM ${s}.provider_dispatches`;
  return {
    up: [
      ...dispatchSendsDdl(schema, 'provider_dispatches'),
      view(', send_answers, send_ms, last_sent_at, last_error_at').replace('CREATE VIEW', 'CREATE OR REPLACE VIEW'),
    ],
    down: [
      `DROP VIEW ${s}.ops_provider_dispatches`,
      view(''),
      grantOpsViewsSql(schema, ['ops_provider_dispatches']),
      `ALTER TABLE ${s}.provider_dispatches DROP COLUMN send_answers, DROP COLUMN send_ms,
         DROP COLUMN last_sent_at, DROP COLUMN last_error_at`,
    ],
  };
}
