import { DataSource, EntityManager } from 'typeorm';
import type { Envelope } from '@payments/contracts';

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
}
