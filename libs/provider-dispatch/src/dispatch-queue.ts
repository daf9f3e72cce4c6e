import { DataSource, EntityManager } from 'typeorm';
import { WorkQueue } from '@payments/messaging';
import { param, raw, type Sql, sql } from '@payments/sql';

/** Where a dispatch row ends; `pending` rows are still to be sent (or being sent). */
export type DispatchStatus = 'pending' | 'accepted' | 'timed_out' | 'refused' | 'gave_up' | 'skipped';

/**
 * Where one service keeps its queue: `"<schema>".<table>` with our id of the send in `idColumn`,
 * the aggregate's id in `referenceColumn`, and the aggregate's row (with a `status`) in
 * `"<schema>".<aggregateTable>`. Orders keep their original names (payment_id, order_id).
 */
export interface DispatchQueueTable {
  schema: string;
  table: string;
  idColumn: string;
  referenceColumn: string;
  aggregateTable: string;
  /**
   * More of the aggregate the send needs, read by the claim (one query less per send): names and
   * SQL expressions over the aggregate aliased `a`; they come back in `ClaimedDispatch.aggregate`.
   */
  aggregateColumns?: Record<string, string>;
}

/** A queued request as a dispatcher claimed it, with its aggregate's status at claim time. */
export interface ClaimedDispatch {
  dispatchId: string;
  referenceId: string;
  provider: string;
  /** numeric(38, 18) as PostgreSQL prints it. */
  amount: string;
  currency: string;
  tokenStandard: string | null;
  /** Sends so far, this one included. */
  sends: number;
  aggregateStatus: string;
  /** What `DispatchQueueTable.aggregateColumns` named, as the claim read it ({} without). */
  aggregate: Record<string, unknown>;
}

export interface NewDispatch {
  dispatchId: string;
  referenceId: string;
  provider: string;
  amount: string;
  currency: string;
  tokenStandard: string | null;
}

/** The channel a committed dispatch row is announced on, so a dispatcher wakes at once. */
export function dispatchChannel(schema: string): string {
  return `${schema}_provider_dispatch`;
}

/**
 * The DDL of a service's queue table (orders created theirs before this library existed, with the
 * same columns under the names `payment_id` and `order_id`).
 */
export function dispatchQueueDdl(t: DispatchQueueTable): string[] {
  const table = `"${t.schema}".${t.table}`;
  return [
    `CREATE TABLE ${table} (
       ${t.idColumn} text PRIMARY KEY,
       ${t.referenceColumn} uuid NOT NULL REFERENCES "${t.schema}".${t.aggregateTable}(id),
       provider text NOT NULL,
       amount numeric(38, 18) NOT NULL CHECK (amount > 0),
       currency text NOT NULL,
       token_standard text,
       status text NOT NULL DEFAULT 'pending',
       sends int NOT NULL DEFAULT 0,
       next_attempt_at timestamptz NOT NULL,
       claim_token uuid,
       claimed_by text,
       provider_payment_id text,
       last_error text,
       created_at timestamptz NOT NULL DEFAULT now(),
       updated_at timestamptz NOT NULL DEFAULT now(),
       CONSTRAINT ${t.table}_status CHECK (status IN ('pending','accepted','timed_out','refused','gave_up','skipped'))
     )`,
    `CREATE INDEX ${t.table}_due ON ${table} (next_attempt_at) WHERE status = 'pending'`,
    `CREATE INDEX ${t.table}_reference ON ${table} (${t.referenceColumn})`,
  ];
}

/**
 * The answer of one send as its dispatch row keeps it (decision 329): what the provider answered
 * (`ProviderAnswer['kind']`) and how long the send took, in whole milliseconds.
 */
export interface SendRecord {
  answer: 'accepted' | 'refused' | 'unavailable' | 'timed_out';
  ms: number;
}

/** What a recorded send changes of a dispatch row: written by the statement that records the outcome. */
export interface SendDetails {
  providerPaymentId?: string;
  error?: string;
  /** The send this outcome answers; absent when nothing was sent (a skip, a drop). */
  send?: SendRecord;
}

/** The assignments that append one send to its row (see `dispatchSendsDdl`). */
function sendColumns(send: SendRecord | undefined, now: Date): Record<string, unknown> {
  if (!send) return {};
  return {
    send_answers: sql`array_append(send_answers, ${send.answer}::text)`,
    send_ms: sql`array_append(send_ms, ${Math.max(0, Math.round(send.ms))}::int)`,
    last_sent_at: now,
    last_error_at: send.answer === 'accepted' ? undefined : now,
  };
}

interface ClaimedRow {
  provider: string;
  amount: string;
  currency: string;
  token_standard: string | null;
  sends: number;
  aggregate_status: string;
  [column: string]: unknown;
}

/**
 * A queue of requests to send to a provider, on the shared work queue of libs/messaging: rows are
 * claimed with a lease (`next_attempt_at` moved past the provider call) and a claim token, so the
 * call itself runs outside any transaction and a crashed dispatcher's rows come back once the
 * lease has run out; the provider's idempotency by dispatch id makes that resend safe. A claim
 * counts a send (`sends`) and reads the aggregate's status with it.
 */
export class DispatchQueue {
  readonly work: WorkQueue<ClaimedRow>;
  private readonly extraColumns: [string, string][];

  constructor(
    dataSource: DataSource,
    private readonly t: DispatchQueueTable,
  ) {
    this.extraColumns = Object.entries(t.aggregateColumns ?? {});
    this.work = new WorkQueue<ClaimedRow>(dataSource, {
      table: `"${t.schema}".${t.table}`,
      idColumn: t.idColumn,
      orderColumn: t.idColumn,
      claimCountColumn: 'sends',
      claimJoin: {
        join: `JOIN "${t.schema}".${t.aggregateTable} a ON a.id = c.${t.referenceColumn}`,
        columns: [
          'a.status AS aggregate_status',
          ...this.extraColumns.map(([name, sql]) => `${sql} AS "aggregate.${name}"`),
        ].join(', '),
      },
      channel: dispatchChannel(t.schema),
    });
  }

  /** Queues a request in the caller's transaction; the dispatcher of this process is woken at commit. */
  async enqueue(m: EntityManager, d: NewDispatch, now: Date): Promise<void> {
    await m.query(
      `INSERT INTO ${this.work.t.table} (${this.t.idColumn}, ${this.t.referenceColumn}, provider, amount, currency, token_standard, status, sends, next_attempt_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'pending', 0, $7, $7, $7)`,
      [d.dispatchId, d.referenceId, d.provider, d.amount, d.currency, d.tokenStandard, now],
    );
    this.work.wake(m);
  }

  /**
   * `enqueue` as a data-modifying CTE `name` of the caller's own statement, queuing one row per
   * row of the CTE `source`, whose `id` is the aggregate's (so a source that inserted nothing
   * queues nothing). A fragment (libs/sql); the caller wakes the dispatcher (`work.wake`).
   */
  enqueueCte(name: string, source: string, d: Omit<NewDispatch, 'referenceId'>, now: Date): Sql {
    const at = param(now);
    return sql`${raw(name)} AS (INSERT INTO ${raw(this.work.t.table)} (${raw(this.t.idColumn)}, ${raw(this.t.referenceColumn)}, provider, amount, currency, token_standard, status, sends, next_attempt_at, created_at, updated_at)
          SELECT ${d.dispatchId}::text, s.id, ${d.provider}::text, ${d.amount}::numeric, ${d.currency}::text, ${d.tokenStandard}::text, 'pending', 0, ${at}::timestamptz, ${at}::timestamptz, ${at}::timestamptz FROM ${raw(source)} AS s)`;
  }

  /** Claims up to `limit` due rows that no other dispatcher holds, in one statement committed before any provider call. */
  async claimDue(
    now: Date,
    leaseUntil: Date,
    limit: number,
    claimToken: string,
    claimedBy: string,
  ): Promise<ClaimedDispatch[]> {
    const rows = await this.work.claim({ now, leaseUntil, limit, claimToken, claimedBy });
    return rows.map((r) => ({
      dispatchId: r[this.t.idColumn] as string,
      referenceId: r[this.t.referenceColumn] as string,
      provider: r.provider,
      amount: r.amount,
      currency: r.currency,
      tokenStandard: r.token_standard,
      sends: Number(r.sends),
      aggregateStatus: r.aggregate_status,
      aggregate: this.extra(r),
    }));
  }

  private extra(r: ClaimedRow): Record<string, unknown> {
    return Object.fromEntries(this.extraColumns.map(([name]) => [name, r[`aggregate.${name}`]]));
  }

  /**
   * Locks a row for recording the outcome of a send, if it is still this claim's: when the lease
   * ran out and another dispatcher re-claimed the row, that one records the outcome instead.
   */
  async lockClaimed(m: EntityManager, dispatchId: string, claimToken: string): Promise<{ sends: number } | null> {
    const row = await this.work.lockClaimed<{ sends: number }>(m, dispatchId, claimToken, 'sends');
    return row ? { sends: Number(row.sends) } : null;
  }

  async finish(
    m: EntityManager,
    dispatchId: string,
    status: Exclude<DispatchStatus, 'pending'>,
    now: Date,
    details: SendDetails = {},
  ): Promise<void> {
    await this.work.finish(m, dispatchId, status, now, {
      provider_payment_id: details.providerPaymentId,
      last_error: details.error,
      ...sendColumns(details.send, now),
    });
  }

  /**
   * `finish` as a CTE `name` of the service's own record statement (one round trip less per
   * send); the row must be locked by `lockClaimed` in the same transaction. A fragment (libs/sql).
   */
  finishCte(
    name: string,
    dispatchId: string,
    status: Exclude<DispatchStatus, 'pending'>,
    now: Date,
    details: SendDetails,
  ): Sql {
    return this.work.finishCte(name, dispatchId, status, now, {
      provider_payment_id: details.providerPaymentId,
      last_error: details.error,
      ...sendColumns(details.send, now),
    });
  }

  /** Skips a claimed row that was not sent, in one statement; false when the claim was lost meanwhile. */
  skipIfClaimed(m: EntityManager, dispatchId: string, claimToken: string, now: Date, error: string): Promise<boolean> {
    return this.work.finishIfClaimed(m, dispatchId, claimToken, 'skipped', now, { last_error: error });
  }

  async reschedule(
    m: EntityManager,
    dispatchId: string,
    at: Date,
    error: string,
    now: Date,
    send?: SendRecord,
  ): Promise<void> {
    await this.work.retryAt(m, dispatchId, at, now, { last_error: error, ...sendColumns(send, now) });
  }

  /** When the next pending row falls due (claimed rows count at the end of their lease). */
  nextDueAt(): Promise<Date | null> {
    return this.work.nextDueAt();
  }
}
