let counter = 0;
const next = (prefix: string) => `${prefix}-${Date.now()}-${++counter}`;

/** A valid create-payout body; override any part. Amounts ending in .99 are accepted by the sandbox and never answered. */
export function aPayoutRequest(over: { amount?: string; currency?: string; tokenStandard?: string; method?: string; merchantPayoutId?: string; payout?: Record<string, unknown>; extra?: Record<string, unknown> } = {}) {
  return {
    payout: {
      merchantPayoutId: over.merchantPayoutId ?? next('po'),
      method: over.method ?? 'uzcard_payout',
      cost: { amount: over.amount ?? '100.99', currency: over.currency ?? 'USD', ...(over.tokenStandard ? { tokenStandard: over.tokenStandard } : {}) },
      description: 'test payout',
      ...(over.payout ?? {}),
    },
    payee: { cardNumber: '8600123456789012', holderName: 'JANE DOE' },
    ...(over.extra ?? {}),
  };
}

/** A valid create-P2P body; override any part. */
export function aP2pRequest(over: { amount?: string; currency?: string; tokenStandard?: string; merchantP2pId?: string; extra?: Record<string, unknown> } = {}) {
  return {
    p2p: {
      merchantP2pId: over.merchantP2pId ?? next('p2p'),
      cost: { amount: over.amount ?? '50.99', currency: over.currency ?? 'USD', ...(over.tokenStandard ? { tokenStandard: over.tokenStandard } : {}) },
      description: 'test transfer',
    },
    sender: { customerId: 'cust-1', name: 'Jane Doe', cardNumber: '4111111111111111' },
    recipient: { name: 'John Roe', phone: '+998901234567', cardNumber: '8600123456789012' },
    ...(over.extra ?? {}),
  };
}
