import { envelope, ProviderCallbackTypes, ProviderEvent, ProviderEventTypes, Topics } from '@payments/contracts';
import { Outbox } from '@payments/messaging';
import { ident, raw, type Sql, sql } from '@payments/sql';
import { callbackEventId } from './receive-callback/receive-callback.controller';

/**
 * A provider's paid outcome stored as every provider callback is (decision 239), as CTEs for a
 * statement of the caller's own: `cb` inserts the `provider_callbacks` row only when the caller's
 * CTE `guard` returned a row, and its two outbox rows follow (raw on provider.callbacks.received,
 * the event on provider.events). Its placeholders are numbered where the caller splices it.
 */
export function providerCallbackCtes(
  outbox: Outbox,
  schema: string,
  guard: string,
  paid: { event: Omit<ProviderEvent, 'receivedAt'>; rawBody: string; signTimestamp: number },
  now: Date,
): Sql {
  const event = { ...paid.event, receivedAt: now.toISOString() };
  const eventId = callbackEventId(event.providerCode, event.providerEventId);
  const received = envelope({
    type: ProviderCallbackTypes.received,
    occurredAt: now,
    payload: {
      callbackId: eventId,
      providerCode: event.providerCode,
      receivedAt: event.receivedAt,
      rawBody: paid.rawBody,
    },
  });
  const events = outbox.cte('e', 'cb', [
    { topic: Topics.providerCallbacksReceived, key: event.reference, envelope: received },
    {
      topic: Topics.providerEvents,
      key: event.reference,
      envelope: envelope({
        type: ProviderEventTypes.event,
        occurredAt: now,
        payload: event,
        eventId,
        causedBy: received,
      }),
    },
  ]);
  return sql`cb AS (
    INSERT INTO ${ident(schema)}.provider_callbacks (id, provider_code, provider_event_id, reference, raw_body, signature_timestamp)
    SELECT ${eventId}, ${event.providerCode}, ${event.providerEventId}, ${event.reference}, ${paid.rawBody}, ${paid.signTimestamp}
      FROM ${raw(guard)} ON CONFLICT DO NOTHING RETURNING id
  ), ${events}`;
}
