/**
 * A small checker for payloads consumed from Kafka. HTTP input is validated by class-validator
 * DTOs at the edge; this checks what another service put on a topic, so a bad producer shows up
 * as a dead-lettered message with a clear reason instead of a crash deep in a handler.
 */
export type Check<T> = (value: unknown, path: string) => { ok: true; value: T } | { ok: false; error: string };

export const str =
  (opts: { min?: number; max?: number; pattern?: RegExp } = {}): Check<string> =>
  (v, path) => {
    if (typeof v !== 'string') return { ok: false, error: `${path} must be a string` };
    if (opts.min !== undefined && v.length < opts.min)
      return { ok: false, error: `${path} must have at least ${opts.min} characters` };
    if (opts.max !== undefined && v.length > opts.max)
      return { ok: false, error: `${path} must have at most ${opts.max} characters` };
    if (opts.pattern && !opts.pattern.test(v)) return { ok: false, error: `${path} has an invalid format` };
    return { ok: true, value: v };
  };

export const int = (): Check<number> => (v, path) =>
  typeof v === 'number' && Number.isInteger(v)
    ? { ok: true, value: v }
    : { ok: false, error: `${path} must be an integer` };

export const bool = (): Check<boolean> => (v, path) =>
  typeof v === 'boolean' ? { ok: true, value: v } : { ok: false, error: `${path} must be a boolean` };

export const literal =
  <T extends string>(...values: T[]): Check<T> =>
  (v, path) =>
    typeof v === 'string' && (values as string[]).includes(v)
      ? { ok: true, value: v as T }
      : { ok: false, error: `${path} must be one of ${values.join(', ')}` };

export const optional =
  <T>(check: Check<T>): Check<T | undefined> =>
  (v, path) =>
    v === undefined || v === null ? { ok: true, value: undefined } : check(v, path);

export const record = (): Check<Record<string, unknown>> => (v, path) =>
  typeof v === 'object' && v !== null && !Array.isArray(v)
    ? { ok: true, value: v as Record<string, unknown> }
    : { ok: false, error: `${path} must be an object` };

export const array =
  <T>(item: Check<T>): Check<T[]> =>
  (v, path) => {
    if (!Array.isArray(v)) return { ok: false, error: `${path} must be an array` };
    const out: T[] = [];
    for (let i = 0; i < v.length; i++) {
      const r = item(v[i], `${path}[${i}]`);
      if (!r.ok) return r;
      out.push(r.value);
    }
    return { ok: true, value: out };
  };

type Shape = Record<string, Check<unknown>>;
type Out<S extends Shape> = { [K in keyof S]: S[K] extends Check<infer T> ? T : never };

export const obj =
  <S extends Shape>(shape: S): Check<Out<S>> =>
  (v, path) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v))
      return { ok: false, error: `${path} must be an object` };
    const input = v as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [key, check] of Object.entries(shape)) {
      const r = check(input[key], path ? `${path}.${key}` : key);
      if (!r.ok) return r;
      if (r.value !== undefined) out[key] = r.value;
    }
    return { ok: true, value: out as Out<S> };
  };

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const DECIMAL_PATTERN = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;
export const uuid = (): Check<string> => str({ pattern: UUID_PATTERN });
export const decimal = (): Check<string> => str({ pattern: DECIMAL_PATTERN });

/** Thrown by `parsePayload`; the consumer dead-letters the message with this reason, no retries. */
export class ContractViolation extends Error {
  override readonly name = 'ContractViolation';
}

export function parsePayload<T>(check: Check<T>, payload: unknown, type: string): T {
  const r = check(payload, 'payload');
  if (!r.ok) throw new ContractViolation(`${type}: ${r.error}`);
  return r.value;
}
