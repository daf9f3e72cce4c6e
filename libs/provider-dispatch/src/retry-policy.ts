export interface RetryPolicy {
  /** Sends before a request the provider keeps refusing (unavailable) is given up. */
  maxSends: number;
  /** Delay before the second send; doubled for each further one, up to `maxBackoffMs`. */
  backoffMs: number;
  maxBackoffMs: number;
}

export function retryDelayMs(sends: number, policy: RetryPolicy): number {
  return Math.min(policy.backoffMs * 2 ** Math.max(0, sends - 1), policy.maxBackoffMs);
}
