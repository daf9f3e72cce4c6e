import { z } from 'zod';

/**
 * A business refusal, mapped to HTTP by the gateway. `code` is stable: it becomes the problem `type`.
 */
export const replyError = z
  .object({
    code: z.enum(['not_found', 'conflict', 'invalid', 'unprocessable', 'forbidden']),
    detail: z.string(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    extensions: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('Extra members for the problem document, e.g. the current status of a conflicting order'),
  })
  .describe('A business refusal; the gateway answers it as a problem document');
export type ReplyError = z.infer<typeof replyError>;

/** The answer to a request sent over Kafka (request-reply from the gateway). */
export type Reply<T> = { ok: true; result: T } | { ok: false; error: ReplyError };

/** The schema of a reply whose result is `result`: the payload of a `<type>.reply` message. */
export function replySchema<T extends z.ZodType>(result: T) {
  return z
    .discriminatedUnion('ok', [
      z.object({ ok: z.literal(true), result }),
      z.object({ ok: z.literal(false), error: replyError }),
    ])
    .describe('The result of the request, or the business refusal');
}

export const ReplyHeaders = {
  /** Where the requester reads its reply: one of ReplyTopics (topics.ts). */
  replyTopic: 'reply-topic',
  /** The request's eventId, on its reply. */
  correlationId: 'correlation-id',
  /** When the requester stops waiting (epoch milliseconds): a reply later than that is not sent. */
  replyBy: 'reply-by',
} as const;

export function okReply<T>(result: T): Reply<T> {
  return { ok: true, result };
}

export function errorReply(error: ReplyError): Reply<never> {
  return { ok: false, error };
}
