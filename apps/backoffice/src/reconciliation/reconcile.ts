import type { Pool } from 'pg';
import { CheckResult, CheckSettings, INVARIANTS, runChecks } from './reconciliation.reads';
import { LEDGER_CHECKED } from './ledger.reads';
import { Query, ReconciliationRepository } from './reconciliation.repository';

export interface ReconciliationRun {
  startedAt: Date;
  finishedAt: Date;
  results: CheckResult[];
}

/**
 * One run: read every invariant through the reconciliation's own connection, then record the
 * breaches in the backoffice's tables (in one transaction, under a lock: one run at a time).
 * Answers null when another run holds the lock.
 */
export async function reconcile(
  reads: Pool,
  write: <T>(work: (q: Query) => Promise<T>) => Promise<T>,
  repository: ReconciliationRepository,
  settings: CheckSettings,
  now: () => Date,
): Promise<ReconciliationRun | null> {
  return write(async (q) => {
    if (!(await repository.tryLock(q))) return null;
    const startedAt = now();
    const results = await runChecks(reads, settings);
    const finishedAt = now();
    await repository.record(q, results, startedAt, finishedAt);
    return { startedAt, finishedAt, results };
  });
}

const WHAT: Record<(typeof INVARIANTS)[number], string> = {
  refunds_within_accepted: 'orders with refunds',
  final_status_called_back: 'final statuses',
  provider_callback_applied: 'provider callbacks',
  outbox_not_stuck: 'outboxes',
  attempt_answered: 'attempts sent',
  daily_totals_match: 'shop-day-status totals',
  replaced_attempt_paid: 'paid attempts',
  ...LEDGER_CHECKED,
};

/** The report a person reads: a clean run says so with what it checked; a breach says what, where, since when. */
export function formatReport(run: ReconciliationRun, maxPerInvariant = 20): string {
  const seconds = ((run.finishedAt.getTime() - run.startedAt.getTime()) / 1000).toFixed(1);
  const total = run.results.reduce((n, r) => n + r.breaches.length, 0);
  const lines = [
    total === 0
      ? `Reconciliation clean: no breach (${run.startedAt.toISOString()}, ${seconds} s)`
      : `Reconciliation found ${total} breach(es) (${run.startedAt.toISOString()}, ${seconds} s)`,
  ];
  const width = Math.max(...INVARIANTS.map((i) => i.length));
  for (const r of run.results) {
    const mark = r.breaches.length === 0 ? 'ok    ' : 'BREACH';
    lines.push(
      `  ${mark} ${r.invariant.padEnd(width)}  ${r.checked} ${WHAT[r.invariant]} checked, ${r.breaches.length} breach(es)`,
    );
    for (const b of r.breaches.slice(0, maxPerInvariant))
      lines.push(`         ${b.subject}: ${b.detail} (since ${b.since.toISOString()})`);
    if (r.breaches.length > maxPerInvariant)
      lines.push(`         … and ${r.breaches.length - maxPerInvariant} more (GET /ops/v1/reconciliation/breaches)`);
  }
  return lines.join('\n');
}
