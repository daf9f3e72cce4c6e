import { z } from 'zod';
import { PaymeErrorName } from './payme-errors';

export const PaymeMethods = [
  'CheckPerformTransaction',
  'CreateTransaction',
  'PerformTransaction',
  'CancelTransaction',
  'CheckTransaction',
  'GetStatement',
] as const;
export type PaymeMethod = (typeof PaymeMethods)[number];

const tiyin = z.number().int().positive();
const time = z.number().int().nonnegative();
const paymeId = z.string().min(1).max(64);
/** Our order id travels as `account.order_id` (the field the cashbox is set up with). */
const account = z.object({ order_id: z.string().min(1).max(128) });

const params = {
  CheckPerformTransaction: z.object({ amount: tiyin, account }),
  CreateTransaction: z.object({ id: paymeId, time, amount: tiyin, account }),
  PerformTransaction: z.object({ id: paymeId }),
  CancelTransaction: z.object({ id: paymeId, reason: z.number().int() }),
  CheckTransaction: z.object({ id: paymeId }),
  GetStatement: z.object({ from: time, to: time }),
} satisfies Record<PaymeMethod, z.ZodType>;

export type PaymeParams = { [M in PaymeMethod]: z.infer<(typeof params)[M]> };
export type PaymeCall = { [M in PaymeMethod]: { method: M; params: PaymeParams[M] } }[PaymeMethod];

export type PaymeParse =
  | { kind: 'ok'; id: string | number | null; call: PaymeCall }
  | { kind: 'error'; id: string | number | null; error: PaymeErrorName; reason: string };

/** A JSON-RPC 2.0 body from Payme: -32700 not JSON, -32600 not a request or bad params, -32601 unknown method. */
export function parsePaymeRequest(raw: string): PaymeParse {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { kind: 'error', id: null, error: 'parse', reason: 'body is not JSON' };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    return { kind: 'error', id: null, error: 'invalidRequest', reason: 'body must be an object' };
  const body = json as { id?: unknown; method?: unknown; params?: unknown };
  const id = typeof body.id === 'string' || typeof body.id === 'number' ? body.id : null;
  if (typeof body.method !== 'string')
    return { kind: 'error', id, error: 'invalidRequest', reason: 'method must be a string' };
  if (!(PaymeMethods as readonly string[]).includes(body.method))
    return {
      kind: 'error',
      id,
      error: 'methodNotFound',
      reason: `method ${body.method.slice(0, 64)} is not one of Payme's`,
    };
  const method = body.method as PaymeMethod;
  const r = params[method].safeParse(body.params);
  if (!r.success) {
    const i = r.error.issues[0];
    return { kind: 'error', id, error: 'invalidRequest', reason: `params.${i.path.join('.')} ${i.message}` };
  }
  return { kind: 'ok', id, call: { method, params: r.data } as PaymeCall };
}
