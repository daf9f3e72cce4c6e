import { z } from 'zod';
import { optional, validate } from './schema';

/** An operator's role in the backoffice: viewer reads; operator also acts; admin also manages operators. */
export const OperatorIdentityRoles = ['viewer', 'operator', 'admin'] as const;

/**
 * Who sends an operator-origin command (decision 301): the operator the backoffice authenticated,
 * as its audit log names them. Every command on an operator path (`<svc>.ops-commands`) carries it
 * in its payload's `operator` member; the consumer refuses one without a valid operator before its
 * handler (libs/messaging, audience-guard.ts), and a command that changes something records it
 * (`resolved_by` of an order, payout or P2P transaction). Never on a merchant's path, event or callback.
 */
export const operatorIdentity = z
  .object({
    id: z
      .string()
      .regex(/^(ops-token|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i, {
        error: 'must be a UUID or ops-token',
      })
      .describe("The operator's id in the backoffice; `ops-token` for the configured OPS_TOKEN"),
    name: z.string().min(1).max(100).describe("The operator's name, as the audit log shows it"),
    role: z.enum(OperatorIdentityRoles),
  })
  .describe(
    'The operator who sent this command, as the backoffice authenticated them; required on an operator path (<svc>.ops-commands), checked before the handler (decision 301)',
  );
export type OperatorIdentity = z.infer<typeof operatorIdentity>;

/**
 * The `operator` member of a command an operator may send (besides the resolves, which require it
 * in their schema): optional in the schema, which other audiences share, and required on the
 * operator path by the consumer before the handler (decision 301).
 */
export const operatorMember = () => ({
  operator: optional(operatorIdentity),
});

/** The payload member that carries the operator of an operator-origin command. */
export const OPERATOR_MEMBER = 'operator';

/** A command's payload as the backoffice sends it on an operator path: the command and who sends it. */
export type OperatorCommand<P> = P & { readonly operator: OperatorIdentity };

/** `payload` with its operator: the one way the backoffice puts the acting operator on a command. */
export function asOperator<P extends object>(operator: OperatorIdentity, payload: P): OperatorCommand<P> {
  const { id, name, role } = operator;
  return { ...payload, operator: { id, name, role } };
}

/** The valid operator a command's payload carries, or the reason it carries none. */
export function operatorOf(payload: unknown): { ok: true; operator: OperatorIdentity } | { ok: false; error: string } {
  const member =
    payload && typeof payload === 'object' ? (payload as Record<string, unknown>)[OPERATOR_MEMBER] : undefined;
  const r = validate(operatorIdentity, member, `payload.${OPERATOR_MEMBER}`);
  return r.ok ? { ok: true, operator: r.value } : { ok: false, error: r.error };
}
