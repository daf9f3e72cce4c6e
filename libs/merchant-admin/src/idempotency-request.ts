import { createHash, randomUUID } from 'node:crypto';
import { FieldError, ProblemException } from '@payments/platform';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
const HEADER_PATH = "headers['Idempotency-Key']";
/** 1 to 255 visible ASCII characters: no spaces or control characters, which proxies mangle. */
const VALID_KEY = /^[\x21-\x7e]{1,255}$/;

/** What the idempotency record compares: the same key must come with the same operation and body. */
export interface Fingerprint {
  method: string;
  route: string;
  bodySha256: string;
}

/** The parts of a Fastify request the idempotency mechanism reads. */
export interface IdempotentRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body?: unknown;
  shop?: { shopId: string };
  /** The vault tokens of the cards this request carried (`@CardTokens()`), kept with its record. */
  cardTokens?: string[];
}

/** The header's value, or undefined without one; a malformed one is a 400 naming the header. */
export function idempotencyKeyOf(request: IdempotentRequest): string | undefined {
  const raw = request.headers[IDEMPOTENCY_HEADER];
  if (raw === undefined) return undefined;
  const value = Array.isArray(raw) ? raw : [raw];
  const error = (message: string): never => {
    const errors: FieldError[] = [{ path: HEADER_PATH, message }];
    throw new ProblemException('validation', `${HEADER_PATH}: ${message}`, errors);
  };
  if (value.length !== 1) error('must be given once');
  if (!VALID_KEY.test(value[0])) error('must be 1 to 255 visible ASCII characters (no spaces)');
  return value[0];
}

/**
 * The operation a key is bound to: the path as sent, not the route pattern, so that the same key
 * on `/payouts/A/cancel` and `/payouts/B/cancel` are two operations. `/order` and `/api/v1/order`
 * are one operation under two names, so a retry through the other path finds its first answer.
 */
export function routeOf(request: IdempotentRequest): string {
  return request.url.split('?')[0].replace(/^\/api\/v1(?=\/)/, '');
}

/** JSON with object keys sorted, so a merchant whose encoder reorders keys still sends "the same body". */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export function fingerprintOf(request: IdempotentRequest): Fingerprint {
  return {
    method: request.method.toUpperCase(),
    route: routeOf(request),
    bodySha256: createHash('sha256').update(canonicalJson(request.body)).digest('hex'),
  };
}

/** A UUID (version 8, the RFC 9562 form for custom hashes) made from a SHA-256 of the parts. */
export function uuidFromHash(...parts: string[]): string {
  const bytes = createHash('sha256').update(parts.join('\n')).digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x80;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The id of the object a POST creates. With an Idempotency-Key it is derived from (shop, route,
 * key): a retry after a timeout (whose first answer was not stored) resends the same id, and the
 * domain service, idempotent by that id, answers the object it already made instead of a second.
 * Without a key every request is a new object.
 */
export function newObjectId(request: IdempotentRequest): string {
  const key = idempotencyKeyOf(request);
  const shopId = request.shop?.shopId;
  if (key === undefined || !shopId) return randomUUID();
  return uuidFromHash('object-id', shopId, routeOf(request), key);
}
