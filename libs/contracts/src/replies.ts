/** The answer to a request sent over Kafka (request-reply from the gateway). */
export type Reply<T> = { ok: true; result: T } | { ok: false; error: ReplyError };

/**
 * A business refusal, mapped to HTTP by the gateway. `code` is stable: it becomes the problem `type`.
 */
export interface ReplyError {
  code: 'not_found' | 'conflict' | 'invalid' | 'unprocessable';
  detail: string;
  errors?: { path: string; message: string }[];
  /** Extra members for the problem document, e.g. the current status of a conflicting order. */
  extensions?: Record<string, unknown>;
}

export const ReplyHeaders = {
  replyTopic: 'reply-topic',
  correlationId: 'correlation-id',
} as const;

export function okReply<T>(result: T): Reply<T> {
  return { ok: true, result };
}

export function errorReply(error: ReplyError): Reply<never> {
  return { ok: false, error };
}
