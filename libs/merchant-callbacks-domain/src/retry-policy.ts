import { backoffMs } from '@payments/backoff';

/**
 * When a failed callback is tried again. Exponential backoff from `baseMs`, doubling up to `capMs`,
 * with "equal jitter" (half fixed, half random) so that the callbacks a dead merchant piled up do
 * not all hit it in the same second when it comes back. Retries go on until `windowMs` has passed
 * since the delivery was queued (or replayed); then the delivery is `failed` and waits for an
 * operator's replay.
 */
export interface RetryPolicy {
  baseMs: number;
  capMs: number;
  windowMs: number;
}

export type RetryDecision = { kind: 'retry'; at: Date; delayMs: number } | { kind: 'give_up' };

/**
 * @param attempt the attempt that just failed, 1 for the first
 * @param random a number in [0, 1): the jitter source, an argument so the rule stays pure
 */
export function nextRetry(
  policy: RetryPolicy,
  attempt: number,
  windowStart: Date,
  now: Date,
  random: number,
): RetryDecision {
  const delayMs = backoffMs(attempt, { baseMs: policy.baseMs, capMs: policy.capMs, jitter: 'equal' }, random);
  const at = new Date(now.getTime() + delayMs);
  if (at.getTime() - windowStart.getTime() > policy.windowMs) return { kind: 'give_up' };
  return { kind: 'retry', at, delayMs };
}

/** 1 s doubling to a 1 h cap for 25 h: about 45 tries (36 to 61 with the jitter), the last ones 30 to 60 min apart. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { baseMs: 1000, capMs: 3_600_000, windowMs: 25 * 3_600_000 };

/** What one HTTP attempt came to, as the delivery worker saw it. */
export type AttemptResult = { kind: 'response'; status: number } | { kind: 'error'; reason: string };

/**
 * Only a 2xx answer means the merchant has the callback. Everything else is retried: 4xx too
 * (a merchant's deploy that briefly answers 404 or 401 must not lose callbacks), 3xx too (we do
 * not follow redirects: the new location has not passed the address check), timeouts and
 * connection errors too. A merchant who wants no more callbacks removes the callback URL.
 */
export function isDelivered(result: AttemptResult): boolean {
  return result.kind === 'response' && result.status >= 200 && result.status < 300;
}
