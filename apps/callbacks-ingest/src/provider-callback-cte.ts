import { envelope, ProviderCallbackTypes, ProviderEvent, ProviderEventTypes, Topics } from '@payments/contracts';
import { Outbox } from '@payments/messaging';
import { callbackEventId } from './receive-callback/receive-callback.controller';

/**
 * A provider's paid outcome stored as every provider callback is (decision 239), as CTEs for a
 * statement of the caller's own: `cb` inserts the `provider_callbacks` row only when the caller's
 * CTE `guard` returned a row, and its two outbox rows follow (raw on provider.callbacks.received,
 * the event on provider.events). Parameters from `$from`.
 */
export function providerCallbackCtes(
  outbox: Outbox,
  schema: string,
  guard: string,
  paid: { event: Omit<ProviderEvent, 'receivedAt'>; rawBody: string; signTimestamp: number },
  now: Date,
  from: number,
): { sql: string; params: unknown[] } {
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
  const p = (i: number) => `$${from + i}`;
  const events = outbox.cte(
    'e',
    'cb',
    [
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
    ],
    from + 6,
  );
  return {
    sql: `cb AS (
           INSERT INTO "${schema}".provider_callbacks (id, provider_code, provider_event_id, reference, raw_body, signature_timestamp)
           SELECT ${p(0)}, ${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)} FROM ${guard} ON CONFLICT DO NOTHING RETURNING id
         ), ${events.sql}`,
    params: [
      eventId,
      event.providerCode,
      event.providerEventId,
      event.reference,
      paid.rawBody,
      paid.signTimestamp,
      ...events.params,
    ],
  };
}
