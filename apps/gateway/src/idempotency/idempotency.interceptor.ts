import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor } from '@nestjs/common';
import { catchError, from, mergeMap, Observable, switchMap, throwError } from 'rxjs';
import { PaymentsMetrics, ProblemException, toProblem, VerbatimResponse } from '@payments/platform';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { PaymentLinks } from '@payments/merchant-admin';
import { Fingerprint, fingerprintOf, idempotencyKeyOf, IdempotentRequest } from '@payments/merchant-admin';
import { CARD_ERASED, IdempotencyRepository, StoredResponse } from '@payments/merchant-admin';

/** Headers of an answer that are part of it and so are replayed with it. */
const KEPT_HEADERS = ['location', 'deprecation', 'sunset', 'link'];
/**
 * Refusals that are the answer to this request for good. Not a 400 (nothing was done; the merchant
 * fixes the body and retries with the same key), nor a 5xx or timeout (the outcome is unknown), nor
 * a refusal whose status code says `retryAllowed` (a balance that does not cover a payout or refund
 * yet, 1-06-02 / 1-06-03): nothing was done and the same request may succeed later (decision 338).
 */
const STORED_ERROR_STATUSES = new Set([404, 409, 422]);
const POLL_MS = 50;
/**
 * Marks a stored answer whose `data.paymentLink` was taken out before storing (docs/decisions.md
 * 186): the link's token is a credential and is never stored; it is made again from the id on a
 * replay. Never sent: removed from the headers before the replay.
 */
const LINK_REMOVED = 'x-stored-without-payment-link';

interface ReplyLike {
  statusCode: number;
  getHeader(name: string): unknown;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Idempotency-Key for every merchant POST (a route behind MerchantAuthGuard), registered globally,
 * so a new merchant route has it without code of its own. The first request with a key runs and
 * its answer is stored; the same key and body get that answer again with `Idempotent-Replayed:
 * true`; the same key with another body or route is a 422; a duplicate of a request still running
 * waits a moment, then gets a 409 with Retry-After.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly records: IdempotencyRepository,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    private readonly links: PaymentLinks,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<IdempotentRequest>();
    const shopId = request.shop?.shopId;
    if (request.method !== 'POST' || !shopId) return next.handle();
    const key = idempotencyKeyOf(request);
    if (key === undefined) return next.handle();
    const fingerprint = fingerprintOf(request);
    const reply = context.switchToHttp().getResponse<ReplyLike>();

    return from(this.begin(shopId, key, fingerprint)).pipe(
      switchMap((stored) => {
        if (stored) {
          PaymentsMetrics.idempotencyReplays.inc();
          const { [LINK_REMOVED]: removed, ...headers } = stored.headers;
          const body = removed ? JSON.stringify(this.links.withOrderLink(JSON.parse(stored.body))) : stored.body;
          return throwError(
            () => new VerbatimResponse(stored.status, { ...headers, 'idempotent-replayed': 'true' }, body),
          );
        }
        return next.handle().pipe(
          mergeMap(async (body) => {
            const kept = withoutPaymentLink(body);
            await this.records.complete(
              shopId,
              key,
              {
                status: reply.statusCode,
                headers: {
                  'content-type': 'application/json; charset=utf-8',
                  ...keptHeaders(reply),
                  ...(kept === body ? {} : { [LINK_REMOVED]: 'order' }),
                },
                body: JSON.stringify(kept),
              },
              request.cardTokens,
            );
            return body;
          }),
          catchError((error: unknown) =>
            from(this.settleFailure(shopId, key, error, reply, request.cardTokens)).pipe(
              mergeMap(() => throwError(() => error)),
            ),
          ),
        );
      }),
    );
  }

  /** Undefined when this request runs; the stored answer when it is a replay. */
  private async begin(shopId: string, key: string, fingerprint: Fingerprint): Promise<StoredResponse | undefined> {
    const deadline = Date.now() + this.config.idempotency.waitMs;
    for (;;) {
      if (await this.records.claim(shopId, key, fingerprint)) return undefined;
      const record = await this.records.find(shopId, key);
      if (record) {
        const mismatch = differs(record.fingerprint, fingerprint);
        if (mismatch) {
          throw new ProblemException(
            'idempotencyKeyReused',
            `This Idempotency-Key was first used with ${mismatch}; use a new key for a new request.`,
            [{ path: "headers['Idempotency-Key']", message: `was first used with ${mismatch}` }],
          );
        }
        if (record.state === 'completed') return record.response;
        if (record.stale && (await this.records.takeOver(shopId, key))) return undefined;
      }
      // No record: the first request released it a moment ago; claim it on the next turn.
      if (Date.now() >= deadline) {
        throw new ProblemException(
          'idempotencyInProgress',
          'A request with this Idempotency-Key is still being processed; retry shortly to get its answer.',
          undefined,
          {},
          { 'retry-after': '1' },
        );
      }
      await sleep(POLL_MS);
    }
  }

  private async settleFailure(
    shopId: string,
    key: string,
    error: unknown,
    reply: ReplyLike,
    cardTokens: string[] | undefined,
  ): Promise<void> {
    const problem = toProblem(error);
    const doc = problem.toDocument();
    if (STORED_ERROR_STATUSES.has(doc.status) && doc.retryAllowed !== true) {
      await this.records.complete(
        shopId,
        key,
        {
          status: doc.status,
          headers: { 'content-type': 'application/problem+json', ...keptHeaders(reply), ...problem.headers },
          body: JSON.stringify(doc),
        },
        cardTokens,
      );
    } else {
      await this.records.release(shopId, key);
    }
  }
}

function differs(first: Fingerprint, now: Fingerprint): string | undefined {
  if (first.method !== now.method || first.route !== now.route)
    return `another operation (${first.method} ${first.route})`;
  // The request carried a card since erased: its body hash was removed, and nothing is replayed.
  if (first.bodySha256 === CARD_ERASED) return 'a card since erased';
  if (first.bodySha256 !== now.bodySha256) return 'another request body';
  return undefined;
}

function keptHeaders(reply: ReplyLike): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = reply.getHeader(name);
    if (value !== undefined) out[name] = String(value);
  }
  return out;
}

/** The answer without `data.paymentLink` (the same object when it has none). */
export function withoutPaymentLink(body: unknown): unknown {
  const data = (body as { data?: unknown } | null)?.data;
  if (!data || typeof data !== 'object' || !('paymentLink' in data)) return body;
  const { paymentLink: _link, ...rest } = data as Record<string, unknown>;
  return { ...(body as object), data: rest };
}
