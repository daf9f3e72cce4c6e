import { DataSource, EntityManager } from 'typeorm';
import type { Envelope } from '@payments/contracts';
import { ident, join, raw, type Sql, sql } from '@payments/sql';
import { wakeAfterCommit } from './local-wake';

export interface OutboxItem {
  /** The contract topic name, without any test prefix: the relay adds it. */
  topic: string;
  /** The aggregate id: all events of one aggregate stay in order on one partition. */
  key: string;
  envelope: Envelope;
  headers?: Record<string, string>;
}

/** The outbox and inbox tables each service keeps in its own schema. */
export function messagingTablesDdl(schema: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS "${schema}".outbox (
       id bigserial PRIMARY KEY,
       topic text NOT NULL,
       key text NOT NULL,
       event_id uuid NOT NULL,
       envelope jsonb NOT NULL,
       headers jsonb NOT NULL DEFAULT '{}'::jsonb,
       created_at timestamptz NOT NULL DEFAULT now(),
       published_at timestamptz
     )`,
    `CREATE INDEX IF NOT EXISTS outbox_unpublished ON "${schema}".outbox (id) WHERE published_at IS NULL`,
    `CREATE INDEX IF NOT EXISTS outbox_published_at ON "${schema}".outbox (published_at) WHERE published_at IS NOT NULL`,
    `CREATE TABLE IF NOT EXISTS "${schema}".inbox (
       consumer text NOT NULL,
       event_id uuid NOT NULL,
       processed_at timestamptz NOT NULL DEFAULT now(),
       PRIMARY KEY (consumer, event_id)
     )`,
  ];
}

/**
 * The operators' views of a service's outbox and inbox (decision 300), which its migration creates
 * and grants: what the backoffice's reconciliation and overview read of them, and nothing else (no
 * topic, key, envelope or header). Simple views, which the planner inlines: a count over
 * `ops_outbox_unpublished` reads the partial index `outbox_unpublished` as the outbox itself would.
 */
export function opsMessagingViewsDdl(schema: string, views: { inbox: boolean }): string[] {
  return [
    `CREATE OR REPLACE VIEW "${schema}".ops_outbox_unpublished AS
       SELECT id, created_at FROM "${schema}".outbox WHERE published_at IS NULL`,
    ...(views.inbox
      ? [`CREATE OR REPLACE VIEW "${schema}".ops_inbox AS SELECT consumer, event_id FROM "${schema}".inbox`]
      : []),
  ];
}

export function outboxChannel(schema: string): string {
  return `${schema}_outbox`;
}

/**
 * Writes messages to the outbox inside the caller's transaction: they are published if and only
 * if the state change commits, and the relay of this process is woken at commit.
 */
export class Outbox {
  constructor(private readonly schema: string) {}

  async add(manager: EntityManager, items: OutboxItem[]): Promise<void> {
    if (items.length === 0) return;
    const insert = sql`INSERT INTO ${ident(this.schema)}.outbox (topic, key, event_id, envelope, headers) VALUES ${outboxRows(items)}`;
    await manager.query(insert.text, insert.values);
    wakeAfterCommit(manager, outboxChannel(this.schema));
  }

  /** `outboxCte` in this outbox's schema. */
  cte(name: string, guard: string, items: readonly OutboxItem[]): Sql {
    return outboxCte(this.schema, name, guard, items);
  }

  /** Rows were written by a statement of the caller's own (see `cte`): wake the relay once they are committed. */
  wake(manager: EntityManager): void {
    wakeAfterCommit(manager, outboxChannel(this.schema));
  }
}

/** What waits in a service's outbox: rows not yet published, and the age of the oldest (0 when none). */
export async function outboxBacklog(
  dataSource: DataSource,
  schema: string,
): Promise<{ messages: number; oldestAgeSeconds: number }> {
  // The partial index outbox_unpublished holds exactly these rows: cheap at every scrape.
  const [row]: { messages: number; age: number | null }[] = await dataSource.query(
    `SELECT count(*)::int AS messages, extract(epoch FROM now() - min(created_at))::float8 AS age
       FROM "${schema}".outbox WHERE published_at IS NULL`,
  );
  return { messages: row.messages, oldestAgeSeconds: Math.max(0, row.age ?? 0) };
}

/**
 * `items` as a data-modifying CTE `name` for a statement of the caller's own, written only when
 * the CTE `guard` returned a row (`FROM guard`; a data-modifying CTE always runs, so a guard that
 * returned nothing writes nothing). A fragment (libs/sql): its placeholders are numbered where it
 * lands; the text depends only on how many items there are. The caller runs the statement, then
 * wakes the relay (`Outbox.wake`).
 */
export function outboxCte(schema: string, name: string, guard: string, items: readonly OutboxItem[]): Sql {
  // `VALUES ()` is not SQL: a caller with nothing to publish leaves the CTE out.
  if (items.length === 0) throw new Error('outboxCte needs at least one item');
  return sql`${raw(name)} AS (INSERT INTO ${ident(schema)}.outbox (topic, key, event_id, envelope, headers)
          SELECT v.* FROM ${raw(guard)}, (VALUES ${outboxRows(items)}) AS v)`;
}

/** The outbox columns of `items` as VALUES rows. */
function outboxRows(items: readonly OutboxItem[]): Sql {
  return join(
    items.map(
      (item) =>
        sql`(${item.topic}::text, ${item.key}::text, ${item.envelope.eventId}::uuid, ${JSON.stringify(item.envelope)}::jsonb, ${JSON.stringify(item.headers ?? {})}::jsonb)`,
    ),
  );
}
