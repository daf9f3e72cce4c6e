import { decimal, literal, obj, optional, ProviderEvent, ProviderEventKinds, str } from '@payments/contracts';

export const SANDBOX_PROVIDER_CODE = 'sandbox';

/** The sandbox's own vocabulary; a real provider's adapter maps its statuses the same way. */
const SANDBOX_STATUSES = ['success', 'failed', 'pending'] as const;
type SandboxStatus = (typeof SANDBOX_STATUSES)[number];

const STATUS_MAP: Record<SandboxStatus, ProviderEvent['status']> = {
  success: 'success',
  failed: 'failed',
  pending: 'pending',
};

const sandboxCallback = obj({
  eventId: str({ min: 1, max: 128 }),
  kind: literal(...ProviderEventKinds),
  reference: str({ min: 1, max: 128 }),
  paymentId: optional(str({ min: 1, max: 128 })),
  status: literal(...SANDBOX_STATUSES),
  amount: decimal(),
  currency: str({ min: 1, max: 32, pattern: /^[A-Z0-9_]+$/ }),
  tokenStandard: optional(str({ min: 1, max: 16 })),
  reason: optional(str({ max: 512 })),
});

export type SandboxParse =
  { kind: 'ok'; event: Omit<ProviderEvent, 'receivedAt'> } | { kind: 'invalid'; reason: string };

/** Parses a verified sandbox callback body into our provider event. */
export function parseSandboxCallback(rawBody: string): SandboxParse {
  let json: unknown;
  try {
    json = JSON.parse(rawBody);
  } catch {
    return { kind: 'invalid', reason: 'body is not JSON' };
  }
  const r = sandboxCallback(json, '');
  if (!r.ok) return { kind: 'invalid', reason: r.error };
  const c = r.value;
  return {
    kind: 'ok',
    event: {
      providerCode: SANDBOX_PROVIDER_CODE,
      providerEventId: c.eventId,
      kind: c.kind,
      reference: c.reference,
      paymentId: c.paymentId,
      status: STATUS_MAP[c.status],
      amount: c.amount,
      currency: c.currency,
      tokenStandard: c.tokenStandard,
      reason: c.reason,
    },
  };
}
