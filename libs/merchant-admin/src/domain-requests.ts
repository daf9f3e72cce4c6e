import { Reply, ReplyError } from '@payments/contracts';
import { KafkaRequestClient, RequestTimeout } from '@payments/messaging';
import { ProblemException, ProblemKind } from '@payments/platform';

const KIND: Record<ReplyError['code'], ProblemKind> = {
  not_found: 'notFound',
  conflict: 'conflict',
  invalid: 'validation',
  unprocessable: 'unprocessable',
  forbidden: 'forbidden',
};

/**
 * Sends a request to a domain service and unwraps its reply; business refusals become problems.
 * No reply in time is a 503 the merchant may retry: with the same Idempotency-Key the retry can
 * never create a second object.
 */
export async function ask<T>(
  client: KafkaRequestClient,
  topic: string,
  key: string,
  type: string,
  payload: unknown,
): Promise<T> {
  let reply: Reply<T>;
  try {
    reply = await client.request<T>(topic, key, type, payload);
  } catch (err) {
    if (err instanceof RequestTimeout) {
      throw new ProblemException(
        'unavailable',
        'The request was accepted but not answered in time; retry it with the same Idempotency-Key.',
        undefined,
        { retryable: true },
        { 'retry-after': '1' },
      );
    }
    throw new ProblemException(
      'unavailable',
      'The service is temporarily unavailable; retry later.',
      undefined,
      { retryable: true },
      { 'retry-after': '2' },
    );
  }
  if (reply.ok) return reply.result;
  throw new ProblemException(
    KIND[reply.error.code],
    reply.error.detail,
    reply.error.errors,
    reply.error.extensions ?? {},
  );
}
