import { createHash, timingSafeEqual } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { ProblemException } from './problem';
import { RateLimiter } from './rate-limiter';

export interface FailedAuthThrottleConfig {
  /** AUTH_FAILURES_BURST: failed authentications an address may have at once before 429s. */
  burst: number;
  /** AUTH_FAILURES_PER_MINUTE: how fast an address gets tries back. */
  perMinute: number;
  /** AUTH_FAILURES_LOG_INTERVAL_MS: one log line per address per interval, with the counts. */
  logIntervalMs: number;
}

interface Counts {
  failed: number;
  throttled: number;
}

/** One credential check of an address, between `FailedAuthThrottle.begin` and its answer. */
export interface AuthAttempt {
  /** The credential was good: the try is given back (successes never count). */
  succeeded(nowMs?: number): void;
  /** The credential was bad (answer the usual 401): the try stays used. */
  failed(): void;
  /** The check could not answer (the key store failed): the try is given back, nothing is learnt. */
  abandoned(): void;
}

/** Where a Nest app provides its FailedAuthThrottle. */
export const FAILED_AUTH_THROTTLE = Symbol('FAILED_AUTH_THROTTLE');

/** Credentials remembered per address as recently good, and for how long; addresses remembered at most. */
const GOOD_PER_ADDRESS = 8;
const GOOD_FOR_MS = 60 * 60_000;
const GOOD_ADDRESSES = 10_000;

/** An address's log lines beyond this many in one interval are summed into one line. */
const MAX_LINES_PER_INTERVAL = 50;

/**
 * The pre-authentication throttle of every listener that checks a credential (merchant API keys,
 * operator token, provider callback signatures): an address that keeps failing is answered 429
 * before its credential is even looked at, so guessing stops paying off, and the failures are
 * logged as one line per address per interval instead of one line per failure. Successful requests
 * never consume tries. IPv6 clients are counted per /64: one host usually holds a whole /64.
 */
export class FailedAuthThrottle {
  private readonly limiter: RateLimiter;
  private counts = new Map<string, Counts>();
  /** Per address: digests of credentials that recently succeeded from it, newest last. */
  private readonly good = new Map<string, { digest: Buffer; at: number }[]>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly config: FailedAuthThrottleConfig,
    private readonly logger: { warn(line: string): void; log(line: string): void },
  ) {
    this.limiter = new RateLimiter(config.perMinute / 60, config.burst);
  }

  /**
   * Call before checking a credential: throws the 429 problem when `address` has used up its failed
   * tries, otherwise reserves one try until the check answers (`succeeded` gives it back, `failed`
   * keeps it). Reserving before the check, not counting after it, is what makes a burst of
   * concurrent attempts pay: otherwise every request of the burst passes before the first failure
   * is counted, and all of them reach the credential check. `credential` (the presented key or
   * token, or its hash; omit when there is none that repeats, like a signature): when it succeeded
   * from this address within the last hour, it passes even while the address is throttled.
   */
  begin(address: string | undefined, nowMs: number, credential?: string): AuthAttempt {
    const key = clientKey(address);
    const digest = credential === undefined ? undefined : createHash('sha256').update(credential).digest();
    if (digest && this.recentlyGood(key, digest, nowMs)) return this.knownAttempt(key, digest, nowMs);
    const decision = this.limiter.take(key, nowMs);
    if (!decision.allowed) {
      this.count(key).throttled += 1;
      throw new ProblemException(
        'rateLimited',
        `Too many failed authentications from this address; retry in ${decision.retryAfterSeconds} s.`,
        undefined,
        {},
        { 'retry-after': String(decision.retryAfterSeconds) },
      );
    }
    let settled = false;
    return {
      succeeded: (atMs = nowMs) => {
        if (settled) return;
        settled = true;
        this.limiter.giveBack(key, atMs);
        if (digest) this.remember(key, digest, atMs);
      },
      abandoned: () => {
        if (settled) return;
        settled = true;
        this.limiter.giveBack(key, nowMs);
      },
      failed: () => {
        if (settled) return;
        settled = true;
        this.count(key).failed += 1;
      },
    };
  }

  /**
   * A credential that recently succeeded from this address passes even while the address is
   * throttled, without taking a try: one client guessing behind a shared address (a NAT, a proxy)
   * does not lock out the others. If it fails now (revoked, expired), it is forgotten and the
   * failure is charged unconditionally: the bucket may go below zero.
   */
  private knownAttempt(key: string, digest: Buffer, nowMs: number): AuthAttempt {
    let settled = false;
    return {
      succeeded: (atMs = nowMs) => {
        if (settled) return;
        settled = true;
        this.remember(key, digest, atMs);
      },
      failed: () => {
        if (settled) return;
        settled = true;
        this.forget(key, digest);
        this.limiter.charge(key, nowMs);
        this.count(key).failed += 1;
      },
      abandoned: () => {
        settled = true;
      },
    };
  }

  /** Compares with every remembered digest of the address in constant time, whichever matches. */
  private recentlyGood(key: string, digest: Buffer, nowMs: number): boolean {
    let found = false;
    for (const g of this.good.get(key) ?? [])
      if (timingSafeEqual(g.digest, digest) && nowMs - g.at < GOOD_FOR_MS) found = true;
    return found;
  }

  private remember(key: string, digest: Buffer, nowMs: number): void {
    const list = (this.good.get(key) ?? []).filter((g) => !g.digest.equals(digest) && nowMs - g.at < GOOD_FOR_MS);
    list.push({ digest, at: nowMs });
    this.good.delete(key); // re-inserted last: the Map's order is least recently successful first
    this.good.set(key, list.slice(-GOOD_PER_ADDRESS));
    if (this.good.size > GOOD_ADDRESSES) this.good.delete(this.good.keys().next().value!);
  }

  private forget(key: string, digest: Buffer): void {
    const list = this.good.get(key)?.filter((g) => !g.digest.equals(digest));
    if (list?.length) this.good.set(key, list);
    else this.good.delete(key);
  }

  /**
   * Logs what the interval saw, one line per address, and starts counting again. A line is a
   * warning when the address was throttled (someone kept guessing: an operator looks), and info
   * when it only had 401s (a merchant's typo or a revoked key is not an alert).
   */
  flush(): void {
    const seconds = Math.round(this.config.logIntervalMs / 1000);
    const entries = [...this.counts.entries()];
    this.counts = new Map();
    for (const [key, c] of entries.slice(0, MAX_LINES_PER_INTERVAL))
      this.report(
        c.throttled,
        `failed authentication from ${key}: ${c.failed} refused with 401, ${c.throttled} throttled with 429 in the last ${seconds} s`,
      );
    const rest = entries.slice(MAX_LINES_PER_INTERVAL);
    if (rest.length > 0) {
      const failed = rest.reduce((n, [, c]) => n + c.failed, 0);
      const throttled = rest.reduce((n, [, c]) => n + c.throttled, 0);
      this.report(
        throttled,
        `failed authentication from ${rest.length} more addresses: ${failed} refused with 401, ${throttled} throttled with 429 in the last ${seconds} s`,
      );
    }
  }

  private report(throttled: number, line: string): void {
    if (throttled > 0) this.logger.warn(line);
    else this.logger.log(line);
  }

  /** Flushes every interval until `stop` (the timer never keeps the process alive). */
  start(): this {
    this.timer ??= setInterval(() => this.flush(), this.config.logIntervalMs).unref();
    return this;
  }

  onModuleDestroy(): void {
    this.stop();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.flush();
  }

  private count(key: string): Counts {
    let c = this.counts.get(key);
    if (!c) this.counts.set(key, (c = { failed: 0, throttled: 0 }));
    return c;
  }
}

/** The address an attempt is counted against: IPv4 as is, IPv6 by its /64. */
export function clientKey(address: string | undefined): string {
  if (!address || !ipaddr.isValid(address)) return address || 'unknown';
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `${parts.join(':')}::/64`;
}
