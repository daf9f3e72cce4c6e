import type { ProviderAnswer, ProviderClient, ProviderRequest } from '@payments/providers/core';
import { SANDBOX_PROVIDER_CODE } from './sandbox-callback';

/** Errors raised before a single byte of the request could reach the provider. */
const NOT_SENT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'ERR_INVALID_URL',
]);

/** The network error codes carried by a failed fetch (undici nests them in `cause`, sometimes in an AggregateError). */
function errorCodes(err: unknown, depth = 0): string[] {
  if (!err || typeof err !== 'object' || depth > 4) return [];
  const e = err as { code?: unknown; cause?: unknown; errors?: unknown };
  const own = typeof e.code === 'string' ? [e.code] : [];
  const nested = Array.isArray(e.errors) ? e.errors.flatMap((x) => errorCodes(x, depth + 1)) : [];
  return [...own, ...nested, ...errorCodes(e.cause, depth + 1)];
}

function excerpt(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/**
 * The adapter of the sandbox acquirer (apps/provider-sandbox): `POST {base}/payments` with the
 * kind. The sandbox keys operations by (kind, reference, paymentId), so a resend of the same
 * dispatch is the same operation there.
 */
export class SandboxProviderClient implements ProviderClient {
  private readonly url: string;

  /** `code`: which sandbox acquirer this is (`sandbox`, `sandbox-b`; decision 323). */
  constructor(
    baseUrl: string,
    readonly code: string = SANDBOX_PROVIDER_CODE,
  ) {
    this.url = `${baseUrl.replace(/\/+$/, '')}/payments`;
  }

  async start(request: ProviderRequest, opts: { timeoutMs: number }): Promise<ProviderAnswer> {
    const body = JSON.stringify({
      kind: request.kind,
      reference: request.reference,
      paymentId: request.dispatchId,
      amount: request.amount,
      currency: request.currency,
      ...(request.tokenStandard ? { tokenStandard: request.tokenStandard } : {}),
      ...(request.cards ? { cards: request.cards } : {}),
      ...(request.app ? { app: true } : {}),
    });
    // One deadline for the whole exchange, reading the answer included.
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), opts.timeoutMs);
    try {
      const response = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body,
        redirect: 'manual',
        signal: abort.signal,
      });
      const text = await response.text();
      return this.answerOf(response.status, text);
    } catch (err) {
      if (abort.signal.aborted) return { kind: 'timed_out', reason: `no answer within ${opts.timeoutMs} ms` };
      const codes = errorCodes(err);
      const reason = `${(err as Error).message}${codes.length ? ` (${codes.join(', ')})` : ''}`;
      if (codes.some((c) => NOT_SENT_CODES.has(c))) return { kind: 'unavailable', reason, notSent: true };
      // The connection broke after the request may have left: the provider may have it.
      return { kind: 'timed_out', reason };
    } finally {
      clearTimeout(timer);
    }
  }

  private answerOf(status: number, text: string): ProviderAnswer {
    if (status >= 200 && status < 300) {
      let providerPaymentId: string | undefined;
      try {
        const parsed = JSON.parse(text) as { providerPaymentId?: unknown };
        if (typeof parsed.providerPaymentId === 'string') providerPaymentId = parsed.providerPaymentId;
      } catch {
        // A 2xx is the provider saying it has it; the body is a courtesy.
      }
      return { kind: 'accepted', ...(providerPaymentId ? { providerPaymentId } : {}) };
    }
    const reason = `HTTP ${status}: ${excerpt(text)}`;
    // 503 and 429: the provider says it cannot take it now, so it took nothing (decision 322).
    if (status === 503 || status === 429) return { kind: 'unavailable', reason, notSent: true };
    // 500, 502, 504, 408: sent again with the same payment id, but never failed over.
    if (status >= 500 || status === 408) return { kind: 'unavailable', reason };
    // 409: the provider already has a payment under our id (a resend after our crash between send
    // and record, or the same id with other terms): it may have the money, so the outcome is
    // unknown, as after a timeout: never sent again, never failed over; its callback decides (decision 343).
    if (status === 409) return { kind: 'timed_out', reason: `${reason} (the provider knows this payment id)` };
    const statusCode = declineCodeOf(text);
    return { kind: 'refused', reason, ...(statusCode ? { statusCode } : {}) };
  }
}

/** The status code a sandbox decline names (`statusCode` of its problem document), if any. */
function declineCodeOf(text: string): string | undefined {
  try {
    const parsed = JSON.parse(text) as { statusCode?: unknown };
    return typeof parsed.statusCode === 'string' && /^[0-9]-[0-9]{2}-[0-9]{2}$/.test(parsed.statusCode)
      ? parsed.statusCode
      : undefined;
  } catch {
    return undefined;
  }
}
