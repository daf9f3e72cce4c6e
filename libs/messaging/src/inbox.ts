import { DataSource, EntityManager } from 'typeorm';
import type { Envelope } from '@payments/contracts';
import { ident, raw, type Sql, sql } from '@payments/sql';

export type InboxOutcome<T> = { kind: 'processed'; result: T } | { kind: 'duplicate' };

/**
 * The idempotent consumer: the message's eventId is recorded in the same transaction as the
 * state change it causes. A redelivered message (after a crash, a rebalance, or a relay that
 * published twice) finds its id taken and changes nothing.
 */
export class Inbox {
  constructor(
    private readonly dataSource: DataSource,
    private readonly schema: string,
    private readonly consumer: string,
  ) {}

  async process<T>(
    message: Pick<Envelope, 'eventId'>,
    work: (manager: EntityManager) => Promise<T>,
  ): Promise<InboxOutcome<T>> {
    return this.dataSource.transaction(async (manager) => {
      const claimed: unknown[] = await manager.query(
        `INSERT INTO "${this.schema}".inbox (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING event_id`,
        [this.consumer, message.eventId],
      );
      if (claimed.length === 0) return { kind: 'duplicate' as const };
      return { kind: 'processed' as const, result: await work(manager) };
    });
  }

  /**
   * The inbox record of `messages` as a data-modifying CTE `name` for a statement of the caller's
   * own: it returns (`event_id`, a uuid) the ids seen for the first time, and the statement does
   * its work for those only (decision 243). A fragment (libs/sql): numbered where it lands.
   */
  cte(name: string, messages: Pick<Envelope, 'eventId'>[]): Sql {
    const ids = inboxIds(messages);
    return sql`${raw(name)} AS (INSERT INTO ${ident(this.schema)}.inbox (consumer, event_id) SELECT ${this.consumer}, unnest(${ids}::uuid[])
         ON CONFLICT DO NOTHING RETURNING event_id)`;
  }

  /**
   * A batch's messages in one transaction: all ids recorded in one statement; `work` gets the ids
   * seen for the first time (lower case; a duplicate, also one repeated within the batch, is not
   * among them) and does its work for those only. All or nothing: if `work` throws, no id stays
   * recorded.
   */
  async processBatch<T>(
    messages: Pick<Envelope, 'eventId'>[],
    work: (manager: EntityManager, fresh: ReadonlySet<string>) => Promise<T>,
  ): Promise<{ fresh: ReadonlySet<string>; result: T }> {
    const ids = inboxIds(messages);
    return this.dataSource.transaction(async (manager) => {
      const claimed: { event_id: string }[] = await manager.query(
        `INSERT INTO "${this.schema}".inbox (consumer, event_id) SELECT $1, unnest($2::uuid[])
         ON CONFLICT DO NOTHING RETURNING event_id`,
        [this.consumer, ids],
      );
      const fresh = new Set(claimed.map((r) => r.event_id));
      return { fresh, result: await work(manager, fresh) };
    });
  }
}

/**
 * A batch's event ids, lower case, once each, sorted: in one order whoever inserts them, so two
 * transactions inserting overlapping ids (a batch handed over again to a new owner while the old
 * one still books it) wait for each other, never deadlock.
 */
function inboxIds(messages: Pick<Envelope, 'eventId'>[]): string[] {
  return [...new Set(messages.map((m) => m.eventId.toLowerCase()))].sort();
}
