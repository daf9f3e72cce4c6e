import type { Breach, CheckResult, Invariant } from './reconciliation.reads';

/** Runs one statement and answers its rows: a pg Pool (the CLI) or a TypeORM DataSource (the backoffice). */
export type Query = (sql: string, params?: unknown[]) => Promise<any[]>;

export interface BreachRow extends Breach {
  firstSeenAt: Date;
  lastSeenAt: Date;
}

export interface RunRow {
  startedAt: Date;
  finishedAt: Date;
  durationMs: number;
  checked: Record<string, number>;
  breaches: number;
}

/**
 * The reconciliation's own tables in the backoffice's schema: the open breaches (one row per
 * invariant and subject, resolved when a later run no longer finds it) and the runs.
 */
export class ReconciliationRepository {
  constructor(private readonly schema: string) {}

  private get breaches() {
    return `"${this.schema}".reconciliation_breaches`;
  }
  private get runs() {
    return `"${this.schema}".reconciliation_runs`;
  }

  /** Only one run at a time across backoffice instances and `npm run reconcile`: false when another holds it. */
  async tryLock(q: Query): Promise<boolean> {
    const [r] = await q(`SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked`, [`${this.schema}.reconciliation`]);
    return r.locked === true;
  }

  /** Records a run: its breaches stay open (or open), the ones it no longer finds are resolved. */
  async record(q: Query, results: CheckResult[], startedAt: Date, finishedAt: Date): Promise<void> {
    const found = results.flatMap((r) => r.breaches);
    if (found.length > 0) {
      await q(
        `INSERT INTO ${this.breaches} (invariant, subject, detail, since, first_seen_at, last_seen_at)
         SELECT invariant, subject, detail, since, $5, $5
           FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[]) AS b(invariant, subject, detail, since)
         ON CONFLICT (invariant, subject) DO UPDATE SET
           detail = EXCLUDED.detail, since = EXCLUDED.since, last_seen_at = EXCLUDED.last_seen_at,
           first_seen_at = CASE WHEN ${this.breaches}.resolved_at IS NULL THEN ${this.breaches}.first_seen_at ELSE EXCLUDED.first_seen_at END,
           resolved_at = NULL`,
        [
          found.map((b) => b.invariant),
          found.map((b) => b.subject),
          found.map((b) => b.detail),
          found.map((b) => b.since),
          startedAt,
        ],
      );
    }
    await q(`UPDATE ${this.breaches} SET resolved_at = $1 WHERE resolved_at IS NULL AND last_seen_at < $2`, [
      finishedAt,
      startedAt,
    ]);
    await q(
      `INSERT INTO ${this.runs} (started_at, finished_at, duration_ms, checked, breaches) VALUES ($1, $2, $3, $4, $5)`,
      [
        startedAt,
        finishedAt,
        finishedAt.getTime() - startedAt.getTime(),
        JSON.stringify(Object.fromEntries(results.map((r) => [r.invariant, r.checked]))),
        found.length,
      ],
    );
  }

  async open(q: Query, invariant?: Invariant, limit = 100): Promise<BreachRow[]> {
    const rows = await q(
      `SELECT invariant, subject, detail, since, first_seen_at, last_seen_at FROM ${this.breaches}
        WHERE resolved_at IS NULL AND ($1::text IS NULL OR invariant = $1)
        ORDER BY since, invariant, subject LIMIT $2`,
      [invariant ?? null, limit],
    );
    return rows.map((r) => ({
      invariant: r.invariant,
      subject: r.subject,
      detail: r.detail,
      since: r.since,
      firstSeenAt: r.first_seen_at,
      lastSeenAt: r.last_seen_at,
    }));
  }

  async openCounts(q: Query): Promise<Map<string, number>> {
    const rows = await q(
      `SELECT invariant, count(*)::int AS n FROM ${this.breaches} WHERE resolved_at IS NULL GROUP BY invariant`,
    );
    return new Map(rows.map((r) => [r.invariant, r.n]));
  }

  async lastRun(q: Query): Promise<RunRow | null> {
    const [r] = await q(
      `SELECT started_at, finished_at, duration_ms, checked, breaches FROM ${this.runs} ORDER BY id DESC LIMIT 1`,
    );
    return r
      ? {
          startedAt: r.started_at,
          finishedAt: r.finished_at,
          durationMs: r.duration_ms,
          checked: r.checked,
          breaches: r.breaches,
        }
      : null;
  }
}
