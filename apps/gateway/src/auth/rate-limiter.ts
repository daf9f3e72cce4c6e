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
 * A token bucket per API key, in this gateway instance's memory: `burst` requests at once, refilled
 * at `perSecond`. With N instances behind a balancer a key gets up to N times the rate; the limit
 * protects the service from a runaway client, it is not a billing quota. The clock is passed in.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

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

  /** Buckets that have refilled are the same as no bucket: drop them so memory follows active keys only. */
  private prune(nowMs: number): void {
    if (this.buckets.size < 10_000) return;
    for (const [key, b] of this.buckets) {
      if (b.tokens + ((nowMs - b.at) / 1000) * this.perSecond >= this.burst) this.buckets.delete(key);
    }
  }
}
