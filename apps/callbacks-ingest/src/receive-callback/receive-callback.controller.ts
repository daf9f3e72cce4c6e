import { Controller, HttpCode, Inject, Logger, Param, Post, Req } from '@nestjs/common';
import type { RawBodyRequest } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { envelope, ProviderCallbackTypes, ProviderEventTypes, Topics } from '@payments/contracts';
import {
  CLOCK,
  type Clock,
  FAILED_AUTH_THROTTLE,
  FailedAuthThrottle,
  FieldError,
  PaymentsMetrics,
  ProblemException,
} from '@payments/platform';
import { ReceiveCallbackDoc } from './receive-callback.openapi';
import { CALLBACKS_INGEST_CONFIG, CallbacksIngestConfig } from '../config';
import { PROVIDER_ADAPTERS } from '../provider-adapters';
import { ProviderCallbackRepository } from './provider-callback.repository';

/** A UUID derived from the provider's own event id: a repeated callback gets the same eventId. */
export function callbackEventId(providerCode: string, providerEventId: string): string {
  const h = createHash('sha256').update(`${providerCode}:${providerEventId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16], 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * The field an adapter's reason names ("amount must be a string"), so the 400 says which field as
 * every other validation error does; a reason about the whole body names `(body)`.
 */
export function fieldErrorOf(reason: string): FieldError {
  const m = /^([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*|\[\d+\])*) (.+)$/.exec(reason);
  return m && m[1] !== 'body' ? { path: m[1], message: m[2] } : { path: '(body)', message: reason };
}

@Controller('callbacks')
export class ReceiveCallbackController {
  private readonly logger = new Logger('ReceiveCallback');

  constructor(
    private readonly callbacks: ProviderCallbackRepository,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CALLBACKS_INGEST_CONFIG) private readonly config: CallbacksIngestConfig,
    @Inject(FAILED_AUTH_THROTTLE) private readonly throttle: FailedAuthThrottle,
  ) {}

  /**
   * Verify over the raw body, store, answer 200 only once it is durable. The raw callback and its
   * normalized event leave through the outbox, written by the statement that stores it; a repeated
   * callback is answered 200 again and changes nothing.
   */
  @Post(':providerCode')
  @HttpCode(200)
  @ReceiveCallbackDoc()
  async receive(
    @Param('providerCode') providerCode: string,
    @Req() req: RawBodyRequest<FastifyRequest>,
  ): Promise<{ received: true; duplicate: boolean }> {
    const adapter = PROVIDER_ADAPTERS.get(providerCode);
    const secret = this.config.providerSecrets[providerCode];
    if (!adapter || !secret) {
      // Any path segment lands here: one label value for all of them keeps the series bounded.
      PaymentsMetrics.providerCallbacks.inc({ provider: 'unknown', result: 'unknown_provider' });
      throw new ProblemException('notFound', `unknown provider "${providerCode.slice(0, 64)}"`);
    }
    const counted = (result: string) => PaymentsMetrics.providerCallbacks.inc({ provider: providerCode, result });
    const now = this.clock.now();
    // An address sending forged callbacks is answered 429 before its signature is checked; its
    // failures are logged as one line per interval with the count, not one line each.
    const attempt = this.throttle.begin(req.ip, now.getTime());
    const raw = req.rawBody;
    if (!raw || raw.length === 0) {
      counted('bad_signature');
      attempt.failed();
      throw new ProblemException('unauthorized', 'the callback is not signed');
    }

    const check = adapter.verify(req.headers, raw, secret, Math.floor(now.getTime() / 1000));
    if (check.kind === 'invalid') {
      counted('bad_signature');
      attempt.failed();
      throw new ProblemException('unauthorized', 'the callback signature is missing or invalid');
    }
    attempt.succeeded();
    const rawBody = raw.toString('utf8');
    const normalized = adapter.normalize(rawBody);
    if (normalized.kind === 'invalid') {
      counted('invalid');
      throw new ProblemException('validation', `the callback body is invalid: ${normalized.reason}`, [
        fieldErrorOf(normalized.reason),
      ]);
    }
    const event = { ...normalized.event, receivedAt: now.toISOString() };
    const eventId = callbackEventId(providerCode, event.providerEventId);

    const received = envelope({
      type: ProviderCallbackTypes.received,
      occurredAt: now,
      payload: { callbackId: eventId, providerCode, receivedAt: event.receivedAt, rawBody },
    });
    const stored = await this.callbacks.storeOnce(
      {
        id: eventId,
        providerCode,
        providerEventId: event.providerEventId,
        reference: event.reference,
        rawBody,
        signatureTimestamp: check.timestamp,
      },
      [
        { topic: Topics.providerCallbacksReceived, key: event.reference, envelope: received },
        {
          topic: Topics.providerEvents,
          key: event.reference,
          envelope: envelope({
            type: ProviderEventTypes.event,
            occurredAt: now,
            payload: event,
            eventId,
            causedBy: received,
          }),
        },
      ],
    );
    counted(stored ? 'accepted' : 'duplicate');
    if (!stored) this.logger.log(`${providerCode} callback ${event.providerEventId} received again; already stored`);
    return { received: true, duplicate: !stored };
  }
}
