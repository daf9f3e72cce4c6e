import { randomUUID } from 'node:crypto';

/** The one envelope of every Kafka message (ARCHITECTURE.md section 2). */
export interface Envelope<P = unknown> {
  readonly eventId: string;
  readonly type: string;
  readonly version: number;
  readonly occurredAt: string;
  readonly correlationId: string;
  readonly causationId: string | null;
  readonly payload: P;
}

export interface EnvelopeInit<P> {
  type: string;
  payload: P;
  occurredAt: Date;
  version?: number;
  eventId?: string;
  /** The message this one is caused by; correlation is inherited from it. */
  causedBy?: Pick<Envelope, 'eventId' | 'correlationId'>;
  correlationId?: string;
}

export function envelope<P>(init: EnvelopeInit<P>): Envelope<P> {
  const eventId = init.eventId ?? randomUUID();
  return {
    eventId,
    type: init.type,
    version: init.version ?? 1,
    occurredAt: init.occurredAt.toISOString(),
    correlationId: init.causedBy?.correlationId ?? init.correlationId ?? eventId,
    causationId: init.causedBy?.eventId ?? null,
    payload: init.payload,
  };
}

export type EnvelopeParse = { kind: 'ok'; envelope: Envelope } | { kind: 'invalid'; reason: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Checks the envelope of a consumed message; the payload is checked by its handler's schema. */
export function parseEnvelope(raw: Buffer | string | null): EnvelopeParse {
  if (raw === null) return { kind: 'invalid', reason: 'empty message value' };
  let value: unknown;
  try {
    value = JSON.parse(raw.toString());
  } catch {
    return { kind: 'invalid', reason: 'value is not JSON' };
  }
  if (typeof value !== 'object' || value === null) return { kind: 'invalid', reason: 'value is not an object' };
  const v = value as Record<string, unknown>;
  if (typeof v.eventId !== 'string' || !UUID.test(v.eventId))
    return { kind: 'invalid', reason: 'eventId must be a UUID' };
  if (typeof v.type !== 'string' || v.type.length === 0)
    return { kind: 'invalid', reason: 'type must be a non-empty string' };
  if (typeof v.version !== 'number' || !Number.isInteger(v.version))
    return { kind: 'invalid', reason: 'version must be an integer' };
  if (typeof v.occurredAt !== 'string' || Number.isNaN(Date.parse(v.occurredAt)))
    return { kind: 'invalid', reason: 'occurredAt must be an ISO timestamp' };
  if (typeof v.correlationId !== 'string') return { kind: 'invalid', reason: 'correlationId must be a string' };
  if (v.causationId !== null && typeof v.causationId !== 'string')
    return { kind: 'invalid', reason: 'causationId must be a string or null' };
  if (typeof v.payload !== 'object' || v.payload === null || Array.isArray(v.payload))
    return { kind: 'invalid', reason: 'payload must be an object' };
  return { kind: 'ok', envelope: v as unknown as Envelope };
}
