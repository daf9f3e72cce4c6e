import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { UUID_PATTERN, validate } from './schema';

const OCCURRED_AT = 'must be an ISO timestamp';

/**
 * The one envelope of every Kafka message (ARCHITECTURE.md section 2). The payload is checked
 * afterwards by its handler's schema, chosen by `type`.
 */
export const envelopeSchema = z
  .object({
    eventId: z.string({ error: 'must be a UUID' }).regex(UUID_PATTERN, { error: 'must be a UUID' }),
    type: z.string({ error: 'must be a non-empty string' }).min(1, { error: 'must be a non-empty string' }),
    version: z.int({ error: 'must be an integer' }),
    // Date.parse is checked by parseEnvelope after the schema: a refine here halves the speed of
    // every consumed message (it turns off zod's compiled fast path for the whole envelope).
    occurredAt: z.string({ error: OCCURRED_AT }).meta({ format: 'date-time' }),
    correlationId: z.string({ error: 'must be a string' }).describe('The eventId of the message that began the chain'),
    causationId: z
      .string({ error: 'must be a string or null' })
      .nullable()
      .describe('The eventId of the message this one is caused by; null for a first message'),
    payload: z.looseObject({}, { error: 'must be an object' }).describe("Checked by the schema of the message's type"),
  })
  .describe('The envelope of every Kafka message; the key is the aggregate id');

export type Envelope<P = unknown> = Readonly<Omit<z.infer<typeof envelopeSchema>, 'payload'> & { payload: P }>;

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
  const r = validate(envelopeSchema, value, '');
  if (!r.ok) return { kind: 'invalid', reason: r.error };
  if (Number.isNaN(Date.parse(r.value.occurredAt))) return { kind: 'invalid', reason: `occurredAt ${OCCURRED_AT}` };
  return { kind: 'ok', envelope: r.value };
}
