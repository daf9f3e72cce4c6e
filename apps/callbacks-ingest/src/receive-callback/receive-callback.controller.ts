import { Controller, HttpCode, Inject, Logger, Param, Post, Req } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { RawBodyRequest } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { envelope, ProviderCallbackTypes, ProviderEventTypes, Topics } from '@payments/contracts';
import { Outbox } from '@payments/messaging';
import {
  FAILED_AUTH_THROTTLE,
  FailedAuthThrottle,
  FieldError,
  PaymentsMetrics,
  preparedQuery,
  ProblemException,
} from '@payments/platform';
import { ReceiveCallbackDoc } from './receive-callback.openapi';
import { CALLBACKS_INGEST_CONFIG, CallbacksIngestConfig } from '../config';
import { PROVIDER_ADAPTERS } from '../provider-adapters';
import { CALLBACKS_OUTBOX } from '../tokens';

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
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(CALLBACKS_OUTBOX) private readonly outbox: Outbox,
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
    const now = new Date();
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
    const events = this.outbox.cte(
      'e',
      'cb',
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
      7,
    );
    // One statement, committed alone (decision 239): the callback and its two outbox rows, or —
    // on any conflict, which is this same callback (the id derives from the provider and its
    // event id, so racing copies meet on the primary key or on that pair) — nothing.
    const rows = await preparedQuery(
      this.dataSource,
      `WITH cb AS (
         INSERT INTO "${this.config.schema}".provider_callbacks (id, provider_code, provider_event_id, reference, raw_body, signature_timestamp)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING id
       ), ${events.sql}
       SELECT id FROM cb`,
      [eventId, providerCode, event.providerEventId, event.reference, rawBody, check.timestamp, ...events.params],
    );
    const stored = rows.length > 0;
    if (stored) this.outbox.wake(this.dataSource.manager);
    counted(stored ? 'accepted' : 'duplicate');
    if (!stored) this.logger.log(`${providerCode} callback ${event.providerEventId} received again; already stored`);
    return { received: true, duplicate: !stored };
  }
}
