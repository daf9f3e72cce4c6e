import { IHeaders } from 'kafkajs';
import { envelope, Envelope, ReplyHeaders } from '@payments/contracts';
import { ReplySender } from './reply-sender';

/**
 * How long a reply is worth sending to a request without a `reply-by` header (sent by a requester
 * of an earlier version): longer than any requester waits.
 */
export const DEFAULT_REPLY_TTL_MS = 60_000;

/** A header's value as text (the first, when kafkajs gives several). */
export function header(headers: IHeaders | undefined, name: string): string | undefined {
  const v = headers?.[name];
  if (v === undefined) return undefined;
  return Array.isArray(v) ? v[0]?.toString() : v.toString();
}

/**
 * Sends a handler's answer to the request's `reply-topic`, or gives it up (ReplySender): a
 * requester that is gone, or a reply topic that is not one of ours, never holds up the message.
 */
export async function replyToRequest(
  replies: ReplySender,
  request: Envelope,
  headers: IHeaders | undefined,
  result: unknown,
): Promise<void> {
  const replyTo = header(headers, ReplyHeaders.replyTopic);
  if (!replyTo || result === undefined) return;
  const replyBy = Number(header(headers, ReplyHeaders.replyBy));
  const deadline =
    Number.isFinite(replyBy) && replyBy > 0 ? replyBy : Date.parse(request.occurredAt) + DEFAULT_REPLY_TTL_MS;
  const response = envelope({
    type: `${request.type}.reply`,
    payload: result,
    occurredAt: new Date(),
    causedBy: request,
  });
  await replies.send(
    replyTo,
    {
      key: request.eventId,
      value: JSON.stringify(response),
      headers: { [ReplyHeaders.correlationId]: request.eventId },
    },
    deadline,
    `${request.type} ${request.eventId}`,
  );
}
