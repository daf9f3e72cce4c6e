import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Outbox, type OutboxItem } from '@payments/messaging';
import { preparedQuery } from '@payments/platform';
import { ident, sql } from '@payments/sql';
import { CALLBACKS_INGEST_CONFIG, CallbacksIngestConfig } from '../config';
import { CALLBACKS_OUTBOX } from '../tokens';

/** A verified provider callback as it is stored. */
export interface ReceivedCallback {
  /** Derived from the provider and its event id (`callbackEventId`): a repeat has the same id. */
  id: string;
  providerCode: string;
  providerEventId: string;
  reference: string;
  rawBody: string;
  signatureTimestamp: number;
}

/** The provider_callbacks table: where a received callback is kept, with the rows it publishes. */
@Injectable()
export class ProviderCallbackRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(CALLBACKS_OUTBOX) private readonly outbox: Outbox,
    @Inject(CALLBACKS_INGEST_CONFIG) private readonly config: CallbacksIngestConfig,
  ) {}

  /**
   * One statement, committed alone (decision 239): the callback and its outbox rows, or — on any
   * conflict, which is this same callback (its id derives from the provider and its event id, so
   * racing copies meet on the primary key or on that pair) — nothing. True when stored; the relay
   * is then woken.
   */
  async storeOnce(callback: ReceivedCallback, events: readonly OutboxItem[]): Promise<boolean> {
    const c = callback;
    const statement = sql`WITH cb AS (
         INSERT INTO ${ident(this.config.schema)}.provider_callbacks (id, provider_code, provider_event_id, reference, raw_body, signature_timestamp)
         VALUES (${c.id}, ${c.providerCode}, ${c.providerEventId}, ${c.reference}, ${c.rawBody}, ${c.signatureTimestamp})
         ON CONFLICT DO NOTHING RETURNING id
       ), ${this.outbox.cte('e', 'cb', events)}
       SELECT id FROM cb`;
    const rows = await preparedQuery(this.dataSource, statement.text, statement.values);
    if (rows.length === 0) return false;
    this.outbox.wake(this.dataSource.manager);
    return true;
  }
}
