import { z } from 'zod';

/**
 * Building blocks of the contract schemas, and the one way a consumer parses with them. HTTP input
 * is validated by class-validator DTOs at the edge; these check what another service put on a
 * topic, so a bad producer shows up as a dead-lettered message with a clear reason instead of a
 * crash deep in a handler. zod was chosen on speed (docs/decisions.md 70); each type is
 * `z.infer` of its schema, never written a second time.
 */

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const DECIMAL_PATTERN = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

export const uuid = () => z.string().regex(UUID_PATTERN, { error: 'must be a UUID' });

/** Money on the wire: a plain decimal string (`"10"`, `"0.50"`), never a number or an exponent. */
export const decimal = () => z.string().regex(DECIMAL_PATTERN, { error: 'must be a decimal string' });

/**
 * An optional member. A producer that writes `null` for "absent" is read as if it left the member
 * out (the hand-written checks did so, and other languages' serializers do it), so a handler sees
 * `undefined` only.
 */
export const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === null ? undefined : v), z.optional(schema));

/** Thrown by `parsePayload`; the consumer dead-letters the message with this reason, no retries. */
export class ContractViolation extends Error {
  override readonly name = 'ContractViolation';
}

export type Validation<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * Checks `value` against `schema`. The error names the path of the first bad member from `root`
 * (`payload.cost.amount must be a decimal string`), one reason as the hand-written checks gave
 * (dead-letter headers stay short); unknown members are dropped, not refused.
 */
export function validate<S extends z.ZodType>(schema: S, value: unknown, root: string): Validation<z.output<S>> {
  const r = schema.safeParse(value);
  if (r.success) return { ok: true, value: r.data };
  // Parsed again for the reason: parse options turn off zod's compiled fast path (5x slower).
  const first = schema.safeParse(value, { error: message }).error!.issues[0];
  return { ok: false, error: `${pathOf(root, first.path)} ${first.message}` };
}

/** Parses a consumed message's payload with its contract schema, or throws a `ContractViolation`. */
export function parsePayload<S extends z.ZodType>(schema: S, payload: unknown, type: string): z.output<S> {
  const r = validate(schema, payload, 'payload');
  if (!r.ok) throw new ContractViolation(`${type}: ${r.error}`);
  return r.value;
}

function pathOf(root: string, path: readonly PropertyKey[]): string {
  let out = root;
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : out ? `.${String(key)}` : String(key);
  return out || 'value';
}

const A_OR_AN: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
  object: 'an object',
  record: 'an object',
  array: 'an array',
  null: 'null',
};

/** The reason in our words; a schema's own message (`must be a UUID`) is kept where it gave one. */
function message(issue: z.core.$ZodRawIssue): string {
  if (issue.input === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_value'))
    return 'is required';
  switch (issue.code) {
    case 'invalid_type':
      return `must be ${A_OR_AN[isInteger(issue.inst) ? 'int' : issue.expected] ?? issue.expected}`;
    case 'too_small':
      return issue.origin === 'string'
        ? `must have at least ${issue.minimum} characters`
        : issue.origin === 'array'
          ? `must have at least ${issue.minimum} items`
          : `must be at least ${issue.minimum}`;
    case 'too_big':
      return issue.origin === 'string'
        ? `must have at most ${issue.maximum} characters`
        : issue.origin === 'array'
          ? `must have at most ${issue.maximum} items`
          : `must be at most ${issue.maximum}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map(String).join(', ')}`;
    case 'invalid_format':
      return 'has an invalid format';
    case 'unrecognized_keys':
      return `must not have ${issue.keys.join(', ')}`;
    default:
      return 'is invalid';
  }
}

/** `z.int()` reports a string as "expected number"; the reason should still say integer. */
function isInteger(inst: unknown): boolean {
  return (inst as { _zod?: { def?: { format?: string } } } | undefined)?._zod?.def?.format === 'safeint';
}
