import { DataSource, EntityManager } from 'typeorm';
import { wakeAfterCommit } from './local-wake';
import { preparedQuery } from '@payments/platform';
import { join, raw, type Sql, sql } from '@payments/sql';

/**
 * Where a queue lives and which of its columns carry the queue's rules. Every queue table has the
 * columns `status` (`'pending'` while queued or in flight; anything else is final),
 * `next_attempt_at` (when it is due; while claimed, the end of its lease), `claim_token`,
 * `claimed_by` and `updated_at`; the rest of the row is the owner's.
 */
export interface WorkQueueTable {
  /** `"<schema>".<table>` */
  table: string;
  idColumn: string;
  /** Breaks ties between items due at the same time: the order they were queued in. */
  orderColumn: string;
  /**
   * Per-key order: an item waits while an earlier one of its key (lower `sequenceColumn`, then
   * `orderColumn`) is still pending, in flight or waiting for its retry.
   */
  ordering?: { keyColumns: string[]; sequenceColumn: string };
  /** Per-group concurrency: at most `perGroup` (given at claim) items of one group in flight. */
  groupColumn?: string;
  /** Incremented by every claim (a try is counted when it starts, so a crash mid-try counts too). */
  claimCountColumn?: string;
  /** More to read with each claimed row: `SELECT c.*, <columns> FROM claimed c <join>`. */
  claimJoin?: { join: string; columns: string };
  /** The in-process wake-up channel of the queue's worker (libs/messaging local-wake). */
  channel: string;
}

export interface ClaimRequest {
  now: Date;
  /** A claimed item comes back to the queue at this time unless its outcome is recorded first. */
  leaseUntil: Date;
  limit: number;
  /** The per-group limit; only for a table with a `groupColumn`. */
  perGroup?: number;
  claimToken: string;
  claimedBy: string;
}

/**
 * Column values for an update; `undefined` leaves a column as it is, `null` clears it, a libs/sql
 * fragment is an expression over the row (`sql\`array_append(col, ${x})\``).
 */
export type ColumnValues = Record<string, unknown>;

/**
 * A work queue in a PostgreSQL table. Items are claimed with a lease: one statement moves
 * `next_attempt_at` past the work and sets a claim token (FOR UPDATE SKIP LOCKED, so claimers never
 * wait on each other), the work runs outside any transaction, and its outcome is recorded only
 * while the claim is still the claimer's (`lockClaimed`). A claimer that crashed leaves its items
 * to come back when their lease runs out. Retries are the owner's choice of `retryAt`.
 */
export class WorkQueue<Row = Record<string, unknown>> {
  private readonly claimSql: string;
  private readonly nextDueSql: string;

  constructor(
    private readonly dataSource: DataSource,
    readonly t: WorkQueueTable,
  ) {
    this.claimSql = t.ordering || t.groupColumn ? orderedClaimSql(t) : plainClaimSql(t);
    this.nextDueSql = `SELECT min(d.next_attempt_at) AS at FROM ${t.table} d WHERE d.status = 'pending'${
      t.ordering ? ` AND NOT EXISTS (${earlierPending(t, 'd')})` : ''
    }`;
  }

  /** Wakes this process's worker when the manager's transaction commits (at once outside one). */
  wake(m: EntityManager): void {
    wakeAfterCommit(m, this.t.channel);
  }

  /** Claims up to `limit` due items in one statement, so the claim commits before any work starts. */
  async claim(r: ClaimRequest): Promise<Row[]> {
    // The outer statement is a SELECT: TypeORM answers an UPDATE ... RETURNING as [rows, count].
    const params: unknown[] = [r.now, r.limit, r.leaseUntil, r.claimToken, r.claimedBy];
    if (this.t.groupColumn) {
      if (r.perGroup === undefined) throw new Error(`a claim on ${this.t.table} needs its per-group limit`);
      params.push(r.perGroup);
    }
    return preparedQuery<Row>(this.dataSource, this.claimSql, params);
  }

  /**
   * Locks a claimed item to record its outcome, if the claim is still this one's: when its lease
   * ran out and another worker claimed it again, that one records the outcome instead (null here).
   */
  async lockClaimed<R>(m: EntityManager, id: string, claimToken: string, columns: string): Promise<R | null> {
    const rows = await preparedQuery<R>(
      m,
      `SELECT ${columns} FROM ${this.t.table} WHERE ${this.t.idColumn} = $1 AND status = 'pending' AND claim_token = $2 FOR UPDATE`,
      [id, claimToken],
    );
    return rows.length === 1 ? rows[0] : null;
  }

  /** Ends an item: `status` is final; `set` writes the owner's columns in the same statement. */
  async finish(m: EntityManager, id: string, status: string, now: Date, set: ColumnValues = {}): Promise<void> {
    if (status === 'pending') throw new Error('finish() takes a final status; retryAt() keeps an item pending');
    await this.update(m, id, { ...set, status, claim_token: null, updated_at: now });
  }

  /**
   * `finish` as a data-modifying CTE `name` for a statement of the caller's own (the caller holds
   * the item's lock, e.g. from `lockClaimed`); a fragment (libs/sql), numbered where it lands.
   */
  finishCte(name: string, id: string, status: string, now: Date, set: ColumnValues): Sql {
    if (status === 'pending') throw new Error('finishCte() takes a final status');
    const entries = Object.entries({ ...set, status, claim_token: null, updated_at: now }).filter(
      ([, v]) => v !== undefined,
    );
    const assignments = join(entries.map(([column, value]) => sql`${raw(column)} = ${value}`));
    const idColumn = raw(this.t.idColumn);
    return sql`${raw(name)} AS (UPDATE ${raw(this.t.table)} SET ${assignments} WHERE ${idColumn} = ${id} RETURNING ${idColumn})`;
  }

  /**
   * Ends an item in one statement, only if it is still this claim's (no lock taken first): true
   * when it was. For an outcome that needs nothing else written with it.
   */
  async finishIfClaimed(
    m: EntityManager,
    id: string,
    claimToken: string,
    status: string,
    now: Date,
    set: ColumnValues = {},
  ): Promise<boolean> {
    if (status === 'pending') throw new Error('finishIfClaimed() takes a final status');
    const entries = Object.entries({ ...set, status, claim_token: null, updated_at: now }).filter(
      ([, v]) => v !== undefined,
    );
    const assignments = entries.map(([column], i) => `${column} = $${i + 3}`).join(', ');
    // Its rows (TypeORM's query answers an UPDATE as [rows, count], which was always two long).
    const rows = await preparedQuery(
      m,
      `UPDATE ${this.t.table} SET ${assignments} WHERE ${this.t.idColumn} = $1 AND status = 'pending' AND claim_token = $2
       RETURNING ${this.t.idColumn}`,
      [id, claimToken, ...entries.map(([, v]) => v)],
    );
    return rows.length === 1;
  }

  /** Gives the item back to the queue, due at `at` (a retry after a backoff, or a pause). */
  async retryAt(m: EntityManager, id: string, at: Date, now: Date, set: ColumnValues = {}): Promise<void> {
    await this.update(m, id, { ...set, next_attempt_at: at, claim_token: null, updated_at: now });
  }

  /**
   * When the next item falls due that a claim could take: claimed ones count at the end of their
   * lease; one waiting behind an earlier item of its key does not count (that one's outcome wakes
   * the worker).
   */
  async nextDueAt(): Promise<Date | null> {
    const rows: { at: Date | null }[] = await this.dataSource.query(this.nextDueSql);
    return rows[0]?.at ?? null;
  }

  /** SQL that is true for a row (aliased `alias`) in flight at `now`: claimed and its lease still running. */
  static inFlight(alias: string, now: unknown): Sql {
    const a = raw(alias);
    return sql`(${a}.status = 'pending' AND ${a}.claim_token IS NOT NULL AND ${a}.next_attempt_at > ${now})`;
  }

  /** A value that is itself SQL (libs/sql) is an expression over the row, e.g. an `array_append`. */
  private async update(m: EntityManager, id: string, values: ColumnValues): Promise<void> {
    const entries = Object.entries(values).filter(([, v]) => v !== undefined);
    const assignments = join(entries.map(([column, value]) => sql`${raw(column)} = ${value}`));
    const statement = sql`UPDATE ${raw(this.t.table)} SET ${assignments} WHERE ${raw(this.t.idColumn)} = ${id}`;
    await m.query(statement.text, statement.values);
  }
}

/** An earlier pending item of the same key as `alias`'s row. */
function earlierPending(t: WorkQueueTable, alias: string): string {
  const o = t.ordering!;
  const sameKey = o.keyColumns.map((c) => `e.${c} = ${alias}.${c}`).join(' AND ');
  const seq = o.sequenceColumn;
  return `SELECT 1 FROM ${t.table} e WHERE e.status = 'pending' AND ${sameKey}
             AND (e.${seq} < ${alias}.${seq} OR (e.${seq} = ${alias}.${seq} AND e.${t.orderColumn} < ${alias}.${t.orderColumn}))`;
}

function claimedSet(t: WorkQueueTable): string {
  const count = t.claimCountColumn ? `${t.claimCountColumn} = d.${t.claimCountColumn} + 1, ` : '';
  return `${count}next_attempt_at = $3, claim_token = $4, claimed_by = $5, updated_at = $1`;
}

function finalSelect(t: WorkQueueTable): string {
  const join = t.claimJoin;
  return join
    ? `SELECT c.*, ${join.columns} FROM claimed c ${join.join} ORDER BY c.${t.orderColumn}`
    : `SELECT * FROM claimed c ORDER BY c.${t.orderColumn}`;
}

/** No ordering and no groups: the oldest due items that nobody holds. */
function plainClaimSql(t: WorkQueueTable): string {
  const id = t.idColumn;
  return `WITH due AS (
       SELECT ${id} FROM ${t.table}
        WHERE status = 'pending' AND next_attempt_at <= $1
        ORDER BY next_attempt_at, ${t.orderColumn}
        LIMIT $2
        FOR UPDATE SKIP LOCKED
     ), claimed AS (
       UPDATE ${t.table} d SET ${claimedSet(t)}
         FROM due WHERE d.${id} = due.${id}
       RETURNING d.*
     )
     ${finalSelect(t)}`;
}

/**
 * With per-key order and/or per-group limits: an item is ready when it is due and (per key) no
 * earlier item of its key is pending; of a group's ready items only as many as the group has free
 * slots (its limit less those in flight) are taken. The rows are then locked with SKIP LOCKED and
 * re-checked, so two claimers never take the same item.
 */
function orderedClaimSql(t: WorkQueueTable): string {
  const id = t.idColumn;
  const order = t.orderColumn;
  const g = t.groupColumn;
  const ready = `SELECT d.${id}, d.next_attempt_at, d.${order}${
    g ? `, d.${g}, row_number() OVER (PARTITION BY d.${g} ORDER BY d.next_attempt_at, d.${order}) AS rn` : ''
  }
         FROM ${t.table} d
        WHERE d.status = 'pending' AND d.next_attempt_at <= $1${t.ordering ? ` AND NOT EXISTS (${earlierPending(t, 'd')})` : ''}`;
  const inflight = g
    ? `inflight AS (
       SELECT f.${g}, count(*)::int AS n FROM ${t.table} f WHERE ${WorkQueue.inFlight('f', raw('$1')).text} GROUP BY f.${g}
     ), `
    : '';
  const picked = g
    ? `SELECT r.${id} FROM ready r LEFT JOIN inflight i ON i.${g} = r.${g}
        WHERE r.rn + COALESCE(i.n, 0) <= $6
        ORDER BY r.next_attempt_at, r.${order}
        LIMIT $2`
    : `SELECT r.${id} FROM ready r ORDER BY r.next_attempt_at, r.${order} LIMIT $2`;
  return `WITH ${inflight}ready AS (
       ${ready}
     ), picked AS (
       ${picked}
     ), locked AS (
       SELECT d.${id} FROM ${t.table} d
        WHERE d.${id} IN (SELECT ${id} FROM picked) AND d.status = 'pending' AND d.next_attempt_at <= $1
        FOR UPDATE SKIP LOCKED
     ), claimed AS (
       UPDATE ${t.table} d SET ${claimedSet(t)}
         FROM locked WHERE d.${id} = locked.${id}
       RETURNING d.*
     )
     ${finalSelect(t)}`;
}
