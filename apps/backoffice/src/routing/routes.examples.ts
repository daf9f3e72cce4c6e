import type { RouteStep, RouteView } from '@payments/contracts';

const SHOP = '6f1c2a52-3d7e-4b8a-9c1f-2e5d8a7b4c30';

const providers: RouteStep[] = [
  { provider: 'sandbox', when: { brands: ['visa', 'mastercard'], currencies: ['USD'], maxAmount: '5000.00' } },
  { provider: 'sandbox-b' },
];

export const setRouteExample = {
  providers,
  reason: 'Acquirer B takes over what A refuses',
};
export const routeExample: RouteView = {
  shopId: SHOP,
  method: 'cards',
  providers: setRouteExample.providers,
  updatedAt: '2026-11-27T10:15:00.000Z',
};

export const deleteRouteExample = { reason: 'Back to the method’s own provider' };

/** A route with every condition a provider may have: its members join the answer's schema. */
export const routeEveryConditionExample: RouteView = {
  ...routeExample,
  method: 'card',
  providers: [
    {
      provider: 'sandbox-b',
      when: {
        instrumentTypes: ['card'],
        brands: ['humo', 'uzcard'],
        currencies: ['UZS'],
        minAmount: '1000.00',
        maxAmount: '50000000.00',
      },
    },
    { provider: 'sandbox' },
  ],
};
