/**
 * How long to wait before try `n + 1` after `n` failed: `baseMs`, doubling with each failure, up to
 * `capMs` when one is given. With `jitter: 'equal'` half the delay is fixed and half is random, so
 * that the work a dead peer piled up does not all come back in the same second; the random number
 * is an argument so that the rule stays pure and its tests exact.
 */
export interface Backoff {
  baseMs: number;
  capMs?: number;
  jitter?: 'none' | 'equal';
}

/** Doubling stops here: 2^40 times any base is past every cap and still a finite number. */
const MAX_DOUBLINGS = 40;

/**
 * @param failures tries that failed so far, 1 for the first (0 or less counts as 1)
 * @param random a number in [0, 1), used only with `jitter: 'equal'`
 */
export function backoffMs(failures: number, b: Backoff, random = 1): number {
  const exponential = b.baseMs * 2 ** Math.min(Math.max(0, failures - 1), MAX_DOUBLINGS);
  const ceiling = b.capMs === undefined ? exponential : Math.min(b.capMs, exponential);
  if (b.jitter !== 'equal') return ceiling;
  return Math.max(1, Math.round(ceiling / 2 + (ceiling / 2) * random));
}
