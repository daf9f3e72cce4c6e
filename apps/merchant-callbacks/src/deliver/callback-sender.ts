import { lookup as dnsLookup, LookupAddress, LookupOptions } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { callbackUrlProblem, isNonPublicAddress, type AttemptResult } from '@payments/merchant-callbacks-domain';

export interface SendOptions {
  timeoutMs: number;
  /** Local development: http and private addresses allowed. */
  allowInsecure: boolean;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

export class RefusedTarget extends Error {}

/**
 * Resolves the host and refuses non-public addresses at connection time, on the very address
 * the socket connects to: checking a name once and connecting later would let DNS answer a
 * public address to the check and a private one to the connection (DNS rebinding).
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
 * Posts one callback. Never throws: every outcome, a refused target included, is an attempt
 * result for the log. Redirects are not followed; the response body is read and dropped.
 */
export function postCallback(
  url: string,
  body: string,
  headers: Record<string, string>,
  opts: SendOptions,
): Promise<AttemptResult> {
  const problem = callbackUrlProblem(url, { allowInsecure: opts.allowInsecure });
  if (problem) return Promise.resolve({ kind: 'error', reason: `callback URL refused: ${problem}` });
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (!opts.allowInsecure && isIP(host) !== 0 && isNonPublicAddress(host)) {
    return Promise.resolve({ kind: 'error', reason: 'callback URL refused: non-public address' });
  }
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const done = (r: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const req = send(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        ...(opts.allowInsecure ? {} : { lookup: guardedLookup as never }),
      },
      (res) => {
        res.resume();
        res.on('end', () => done({ kind: 'response', status: res.statusCode ?? 0 }));
        res.on('error', () => done({ kind: 'response', status: res.statusCode ?? 0 }));
      },
    );
    // One deadline for the whole exchange: a merchant that accepts the connection and never answers must not hold a slot.
    const timer = setTimeout(() => {
      req.destroy(new Error(`no answer within ${opts.timeoutMs} ms`));
    }, opts.timeoutMs);
    req.on('error', (err) => {
      const reason =
        err instanceof RefusedTarget
          ? `callback URL refused: ${err.message}`
          : err.message || (err as NodeJS.ErrnoException).code || 'connection error';
      done({ kind: 'error', reason });
    });
    req.end(body);
  });
}
