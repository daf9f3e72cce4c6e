import { backoffMs } from '@payments/backoff';

export interface RetryPolicy {
  /** Sends before a request the provider keeps refusing (unavailable) is given up. */
  maxSends: number;
  /** Delay before the second send; doubled for each further one, up to `maxBackoffMs`. */
  backoffMs: number;
  maxBackoffMs: number;
}

export function retryDelayMs(sends: number, policy: RetryPolicy): number {
  return backoffMs(sends, { baseMs: policy.backoffMs, capMs: policy.maxBackoffMs });
}
