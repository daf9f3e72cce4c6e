import type { ProvidersReport } from '../overview/providers.service';

export const providersExample: ProvidersReport = {
  at: '2026-11-27T22:15:00.000Z',
  windows: ['1h', '24h'],
  sends: [
    {
      provider: 'sandbox',
      kind: 'payment',
      window: '1h',
      sends: 120,
      accepted: 111,
      refused: 4,
      unavailable: 4,
      timedOut: 1,
      successRate: 0.925,
      p50Ms: 84,
      p99Ms: 2410,
      lastErrorAt: '2026-11-27T22:09:41.203Z',
    },
    {
      provider: 'sandbox',
      kind: 'payout',
      window: '1h',
      sends: 12,
      accepted: 12,
      refused: 0,
      unavailable: 0,
      timedOut: 0,
      successRate: 1,
      p50Ms: 97,
      p99Ms: 310,
      lastErrorAt: null,
    },
  ],
  callsIn: [
    {
      provider: 'click',
      window: '1h',
      attempts: 9,
      success: 7,
      failed: 1,
      pending: 1,
      lastFailedAt: '2026-11-27T21:58:02.000Z',
    },
  ],
  unavailable: [],
  routes: [
    {
      shopId: '6f1c2a52-3d7e-4b8a-9c1f-2e5d8a7b4c30',
      method: 'cards',
      providers: [
        { provider: 'sandbox', when: { brands: ['visa', 'mastercard'], currencies: ['USD'], maxAmount: '5000.00' } },
        { provider: 'sandbox-b' },
      ],
      updatedAt: '2026-11-27T10:15:00.000Z',
    },
  ],
  routesUnavailable: false,
};

/** What could not be read is named, and its figures are left out. */
export const providersPartialExample: ProvidersReport = {
  ...providersExample,
  sends: providersExample.sends.filter((x) => x.kind !== 'p2p'),
  unavailable: ['attempts', 'p2p'],
};
