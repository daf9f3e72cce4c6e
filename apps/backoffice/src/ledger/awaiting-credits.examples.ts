import { AwaitingCreditList, AwaitingCreditView, CreditRelease } from '@payments/contracts';

const SHOP = '6f1c2a52-3d7e-4b8a-9c1f-2e5d8a7b4c30';

const parked: AwaitingCreditView = {
  creditId: '4a6c8e0f-2b4d-4f6a-8c0e-1a3b5c7d9e2f',
  shopId: SHOP,
  orderId: '7e9a1c3d-5f7b-4d9e-8a1c-3e5f7a9b1c2d',
  orderCurrency: 'BRL',
  balanceCurrency: 'USDT-TRC20',
  amount: '512.4',
  createdAt: '2026-11-27T08:15:00.000Z',
  status: 'parked',
  parked:
    'conversion failed: order 7e9a1c3d-5f7b-4d9e-8a1c-3e5f7a9b1c2d: its credit’s currency is no longer in the registry',
  parkedAt: '2026-11-27T09:00:10.000Z',
};

export const awaitingCreditsExample: AwaitingCreditList = {
  items: [
    parked,
    {
      creditId: '0d2f4a6c-8e1b-4c3d-9f5a-7b9d1e3f5a7c',
      shopId: SHOP,
      orderId: '1b3d5f7a-9c2e-4a6b-8d0f-2c4e6a8b0d1f',
      orderCurrency: 'EUR',
      balanceCurrency: 'USDT-TRC20',
      amount: '50',
      createdAt: '2026-11-27T10:40:00.000Z',
      status: 'awaiting_rate',
      parked: null,
      parkedAt: null,
    },
  ],
  total: 2,
};

export const awaitingCreditExample: AwaitingCreditView = parked;

export const releaseRequestExample = { reason: 'BRL added back to the currency registry, ticket 5120' };

export const creditReleaseExample: CreditRelease = {
  credit: { ...parked, status: 'awaiting_rate', parked: null, parkedAt: null },
  released: true,
  wasParked: parked.parked,
};
