export interface RateDecision {
  allowed: boolean;
  limit: number;
  /** Whole requests left in the bucket after this one. */
  remaining: number;
  /** When refused: whole seconds until one request is allowed again (at least 1). */
  retryAfterSeconds: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * A token bucket per key (an API key; a client address for failed authentications), in this
 * instance's memory: `burst` requests at once, refilled
 * at `perSecond`. With N instances behind a balancer a key gets up to N times the rate; the limit
 * protects the service from a runaway client, it is not a billing quota. The clock is passed in.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private sweptAt = -Infinity;

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
  ) {}

  take(key: string, nowMs: number): RateDecision {
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: nowMs };
    const refilled = Math.min(this.burst, bucket.tokens + (Math.max(0, nowMs - bucket.at) / 1000) * this.perSecond);
    if (refilled >= 1) {
      this.buckets.set(key, { tokens: refilled - 1, at: nowMs });
      this.prune(nowMs);
      return { allowed: true, limit: this.burst, remaining: Math.floor(refilled - 1), retryAfterSeconds: 0 };
    }
    this.buckets.set(key, { tokens: refilled, at: nowMs });
    return {
      allowed: false,
      limit: this.burst,
      remaining: 0,
      retryAfterSeconds: Math.max(1, Math.ceil((1 - refilled) / this.perSecond)),
    };
  }

  /** Whether `take` would allow a request now, without taking one. */
  peek(key: string, nowMs: number): RateDecision {
    const bucket = this.buckets.get(key);
    if (!bucket) return { allowed: true, limit: this.burst, remaining: this.burst, retryAfterSeconds: 0 };
    const refilled = Math.min(this.burst, bucket.tokens + (Math.max(0, nowMs - bucket.at) / 1000) * this.perSecond);
    if (refilled >= 1)
      return { allowed: true, limit: this.burst, remaining: Math.floor(refilled), retryAfterSeconds: 0 };
    return {
      allowed: false,
      limit: this.burst,
      remaining: 0,
      retryAfterSeconds: Math.max(1, Math.ceil((1 - refilled) / this.perSecond)),
    };
  }

  /** Gives back one request taken with `take` (never above the burst): a reservation not needed after all. */
  giveBack(key: string, nowMs: number): void {
    const bucket = this.buckets.get(key);
    if (!bucket) return;
    const refilled = Math.min(this.burst, bucket.tokens + (Math.max(0, nowMs - bucket.at) / 1000) * this.perSecond);
    this.buckets.set(key, { tokens: Math.min(this.burst, refilled + 1), at: nowMs });
  }

  /** Takes one request whatever is left: the bucket may go below zero, so a burst is paid for. */
  charge(key: string, nowMs: number): void {
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: nowMs };
    const refilled = Math.min(this.burst, bucket.tokens + (Math.max(0, nowMs - bucket.at) / 1000) * this.perSecond);
    this.buckets.set(key, { tokens: refilled - 1, at: nowMs });
  }

  /** Buckets that have refilled are the same as no bucket: drop them so memory follows active keys only. */
  private prune(nowMs: number): void {
    // At most one scan a second: many new keys (addresses) each second must not each pay for one.
    if (this.buckets.size < 10_000 || nowMs - this.sweptAt < 1000) return;
    this.sweep(nowMs);
  }

  private sweep(nowMs: number): void {
    this.sweptAt = nowMs;
    for (const [key, b] of this.buckets) {
      if (b.tokens + ((nowMs - b.at) / 1000) * this.perSecond >= this.burst) this.buckets.delete(key);
    }
  }

  /** How many buckets are held (memory follows active keys). */
  get size(): number {
    return this.buckets.size;
  }
}
