import { lookup as dnsLookup, LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import { callbackUrlProblem, isNonPublicAddress, type AttemptResult } from '@payments/merchant-callbacks-domain';

export interface SendOptions {
  timeoutMs: number;
  /** Local development: http and private addresses allowed. */
  allowInsecure: boolean;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

export class RefusedTarget extends Error {}

/**
 * An idle kept-alive connection to a merchant is closed after this long (or sooner if the
 * merchant says so; a longer hint is capped to it). It stays below the idle timeouts common in
 * front of merchants (5 s in Node's own server and many proxies): a POST is not retried by
 * undici, so a connection the merchant closed just as we reused it would be a false network error.
 */
const KEEP_ALIVE_MS = 4_000;

/**
 * Resolves the host and refuses non-public addresses at connection time, on the very address
 * the socket connects to: checking a name once and connecting later would let DNS answer a
 * public address to the check and a private one to the connection (DNS rebinding). A kept-alive
 * connection stays on the address checked when it was opened.
 */
export function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const list = addresses as LookupAddress[];
    const bad = list.find((a) => isNonPublicAddress(a.address));
    if (bad || list.length === 0)
      return callback(new RefusedTarget(`${hostname} resolves to a non-public address`), []);
    if (options.all) return callback(null, list);
    return callback(null, list[0].address, list[0].family);
  });
}

/**
 * Posts callbacks over kept-alive connections: one undici `Agent`, which keeps a pool of
 * connections per merchant origin (scheme, host, port), so a busy merchant's callbacks reuse
 * their TCP and TLS connections instead of opening one per callback (decision 201). Every new
 * connection resolves its host through `guardedLookup`; redirects are never followed.
 */
export class CallbackSender {
  private readonly agent: Agent;

  constructor(private readonly opts: SendOptions) {
    this.agent = new Agent({
      keepAliveTimeout: KEEP_ALIVE_MS,
      keepAliveMaxTimeout: KEEP_ALIVE_MS,
      // Headers and body are bounded by the one deadline of the whole exchange below.
      headersTimeout: 0,
      bodyTimeout: 0,
      connect: opts.allowInsecure ? { timeout: opts.timeoutMs } : { timeout: opts.timeoutMs, lookup: guardedLookup },
    });
  }

  /**
   * Posts one callback. Never throws: every outcome, a refused target included, is an attempt
   * result for the log. The response body is read and dropped.
   */
  async post(url: string, body: string, headers: Record<string, string>): Promise<AttemptResult> {
    const problem = callbackUrlProblem(url, { allowInsecure: this.opts.allowInsecure });
    if (problem) return { kind: 'error', reason: `callback URL refused: ${problem}` };
    const target = new URL(url);
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (!this.opts.allowInsecure && isIP(host) !== 0 && isNonPublicAddress(host)) {
      return { kind: 'error', reason: 'callback URL refused: non-public address' };
    }
    // One deadline for the whole exchange, connection included: a merchant that accepts the
    // connection and never answers must not hold a slot.
    const deadline = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      deadline.abort();
    }, this.opts.timeoutMs);
    try {
      const res = await request(target, {
        dispatcher: this.agent,
        method: 'POST',
        headers,
        body,
        signal: deadline.signal,
      });
      await res.body.dump({ limit: 64 * 1024, signal: deadline.signal }).catch(() => undefined);
      return { kind: 'response', status: res.statusCode };
    } catch (err) {
      if (timedOut) return { kind: 'error', reason: `no answer within ${this.opts.timeoutMs} ms` };
      return { kind: 'error', reason: errorReason(err) };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes the kept-alive connections (at shutdown, after the calls in flight ended). */
  async close(): Promise<void> {
    await this.agent.close();
  }
}

function errorReason(err: unknown): string {
  const e = err as NodeJS.ErrnoException & { cause?: unknown };
  const cause = e.cause as (NodeJS.ErrnoException & { cause?: unknown }) | undefined;
  if (err instanceof RefusedTarget) return `callback URL refused: ${err.message}`;
  if (cause instanceof RefusedTarget) return `callback URL refused: ${cause.message}`;
  return e.message || e.code || cause?.message || 'connection error';
}

/** Posts one callback on a sender of its own (closed afterwards): tests and one-off calls. */
export async function postCallback(
  url: string,
  body: string,
  headers: Record<string, string>,
  opts: SendOptions,
): Promise<AttemptResult> {
  const sender = new CallbackSender(opts);
  try {
    return await sender.post(url, body, headers);
  } finally {
    await sender.close();
  }
}
