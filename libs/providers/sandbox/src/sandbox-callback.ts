import { decimal, optional, ProviderEvent, ProviderEventKinds, validate } from '@payments/contracts';
import { z } from 'zod';

export const SANDBOX_PROVIDER_CODE = 'sandbox';

/** The sandbox's own vocabulary; a real provider's adapter maps its statuses the same way. */
const SANDBOX_STATUSES = ['success', 'failed', 'pending'] as const;
type SandboxStatus = (typeof SANDBOX_STATUSES)[number];

export const SANDBOX_STATUS_MAP: Record<SandboxStatus, ProviderEvent['status']> = {
  success: 'success',
  failed: 'failed',
  pending: 'pending',
};

const sandboxCallback = z.object({
  eventId: z.string().min(1).max(128),
  kind: z.enum(ProviderEventKinds),
  reference: z.string().min(1).max(128),
  paymentId: optional(z.string().min(1).max(128)),
  status: z.enum(SANDBOX_STATUSES),
  amount: decimal(),
  currency: z
    .string()
    .min(1)
    .max(32)
    .regex(/^[A-Z0-9_]+$/, { error: 'must be upper-case letters, digits or _' }),
  tokenStandard: optional(z.string().min(1).max(16)),
  reason: optional(z.string().max(512)),
});

export type SandboxParse =
  { kind: 'ok'; event: Omit<ProviderEvent, 'receivedAt'> } | { kind: 'invalid'; reason: string };

/**
 * Parses a verified sandbox callback body into our provider event, under the code of the sandbox
 * acquirer that sent it (`sandbox`, or a second one such as `sandbox-b`: decision 323).
 */
export function parseSandboxCallback(rawBody: string, providerCode: string = SANDBOX_PROVIDER_CODE): SandboxParse {
  let json: unknown;
  try {
    json = JSON.parse(rawBody);
  } catch {
    return { kind: 'invalid', reason: 'body is not JSON' };
  }
  const r = validate(sandboxCallback, json, '');
  if (!r.ok) return { kind: 'invalid', reason: r.error };
  const c = r.value;
  return {
    kind: 'ok',
    event: {
      providerCode,
      providerEventId: c.eventId,
      kind: c.kind,
      reference: c.reference,
      paymentId: c.paymentId,
      status: SANDBOX_STATUS_MAP[c.status],
      amount: c.amount,
      currency: c.currency,
      tokenStandard: c.tokenStandard,
      reason: c.reason,
    },
  };
}
