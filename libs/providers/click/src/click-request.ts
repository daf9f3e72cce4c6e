import { z } from 'zod';

/** Click's `action`: 0 Prepare, 1 Complete ("Click-API – Request", https://docs.click.uz/en/click-api-request/). */
export const ClickActions = { prepare: 0, complete: 1 } as const;

const digits = (max: number) => z.string().regex(new RegExp(`^[0-9]{1,${max}}$`), { error: 'must be a whole number' });
/** Click writes amounts as a float ("1000", "1000.5", "1000.00"): at most 2 decimals, never negative. */
const amount = z.string().regex(/^(0|[1-9][0-9]{0,14})(\.[0-9]{1,2})?$/, { error: 'must be a decimal amount' });
const integer = z.string().regex(/^-?[0-9]{1,9}$/, { error: 'must be an integer' });

/** The form fields of a Prepare, as Click posts them (application/x-www-form-urlencoded). */
const prepareFields = z.object({
  click_trans_id: digits(20),
  service_id: digits(20),
  click_paydoc_id: digits(20),
  merchant_trans_id: z.string().min(1).max(128),
  amount,
  action: integer,
  error: integer,
  error_note: z.string().max(512).optional().default(''),
  sign_time: z
    .string()
    .regex(/^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$/, { error: 'must be YYYY-MM-DD HH:mm:ss' }),
  sign_string: z.string().regex(/^[0-9a-fA-F]{32}$/, { error: 'must be an MD5 in hex' }),
});
/** A Complete carries everything a Prepare does and the id we answered to it. */
const completeFields = prepareFields.extend({ merchant_prepare_id: digits(20) });

export type ClickPrepareRequest = z.infer<typeof prepareFields>;
export type ClickCompleteRequest = z.infer<typeof completeFields>;
export type ClickParse<T> = { kind: 'ok'; request: T } | { kind: 'invalid'; reason: string };

function firstIssue(e: z.ZodError): string {
  const i = e.issues[0];
  return `${i.path.join('.') || '(form)'} ${i.message}`;
}

/** Form fields as a flat record of strings (a repeated field is refused: Click never repeats one). */
function flat(form: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(form).map(([k, v]) => [k, typeof v === 'number' ? String(v) : v]));
}

export function parsePrepare(form: Record<string, unknown>): ClickParse<ClickPrepareRequest> {
  const r = prepareFields.safeParse(flat(form));
  return r.success ? { kind: 'ok', request: r.data } : { kind: 'invalid', reason: firstIssue(r.error) };
}

export function parseComplete(form: Record<string, unknown>): ClickParse<ClickCompleteRequest> {
  const r = completeFields.safeParse(flat(form));
  return r.success ? { kind: 'ok', request: r.data } : { kind: 'invalid', reason: firstIssue(r.error) };
}

/** Our answer to a Prepare, field for field as Click reads it. */
export interface ClickPrepareAnswer {
  click_trans_id: number;
  merchant_trans_id: string;
  merchant_prepare_id: number | null;
  error: number;
  error_note: string;
}

/** Our answer to a Complete. */
export interface ClickCompleteAnswer {
  click_trans_id: number;
  merchant_trans_id: string;
  merchant_confirm_id: number | null;
  error: number;
  error_note: string;
}
