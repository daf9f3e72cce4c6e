import type { ConformanceKit } from '@payments/providers/core';
import { parseSandboxCallback, SANDBOX_PROVIDER_CODE } from '../sandbox-callback';
import { sign, verifySignature } from '../signature';

const SECRET = 'conformance-sandbox-secret';
const NOW = 1_800_000_000;

/** A sandbox acquirer's signed callback for a paid payment, checked and read as callbacks-ingest does. */
export const sandboxConformanceKitOf = (providerCode: string): ConformanceKit => ({
  terms: { reference: 'c0000000-0000-4000-8000-00000000000a', amount: '100.00', currency: 'USD' },
  paid: (t, opts) => {
    const raw = JSON.stringify({
      eventId: `evt-${t.reference}`,
      kind: 'payment',
      paymentId: `pay_${t.reference}`,
      status: 'success',
      ...t,
    });
    const header = sign(opts.forged ? `${SECRET}-forged` : SECRET, raw, NOW);
    const check = verifySignature(header, Buffer.from(raw), SECRET, NOW);
    if (check.kind === 'invalid') return { kind: 'refused', reason: check.reason };
    const n = parseSandboxCallback(raw, providerCode);
    return n.kind === 'ok' ? { kind: 'event', event: n.event } : { kind: 'refused', reason: n.reason };
  },
});

/** The sandbox's own kit. */
export const sandboxConformanceKit: ConformanceKit = sandboxConformanceKitOf(SANDBOX_PROVIDER_CODE);
