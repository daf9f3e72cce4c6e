import { FeeListView, FeeScheduleView, RateListView, RateView, SettlementView } from '@payments/contracts';

const SHOP = '6f1c2a52-3d7e-4b8a-9c1f-2e5d8a7b4c30';

export const setFeeExample = {
  percent: '2.5',
  fixed: '0.30',
  minimum: '1.00',
  reason: 'Contract of 2026-11-20, schedule B',
};

export const feeExample: FeeScheduleView = {
  shopId: SHOP,
  method: 'card',
  currency: 'USD',
  percent: '2.5',
  fixed: '0.3',
  minimum: '1',
  updatedAt: '2026-11-27T10:15:00.000Z',
};

export const feeListExample: FeeListView = {
  shopId: SHOP,
  fees: [
    feeExample,
    { ...feeExample, method: 'usdt-payout', currency: 'USDT-TRC20', percent: '0', fixed: '1', minimum: '0' },
  ],
};

export const deleteFeeExample = { reason: 'The shop no longer takes cards' };

export const setSettlementExample = { settlementDelaySeconds: 0, reason: 'Trusted merchant: settles at once' };

export const settlementExample: SettlementView = { shopId: SHOP, settlementDelaySeconds: 0, default: false };

export const setRateExample = {
  base: 'USD',
  quote: 'USDT-TRC20',
  rate: '0.998',
  validFrom: '2026-11-27T00:00:00Z',
  validTo: '2026-11-28T00:00:00Z',
  reason: 'Treasury desk rate of the day',
};

export const rateExample: RateView = {
  id: '42',
  base: 'USD',
  quote: 'USDT-TRC20',
  rate: '0.998',
  source: 'operator:3b8f6a0e-9d2c-4e1a-8f7b-5c4d3e2a1b09',
  validFrom: '2026-11-27T00:00:00.000Z',
  validTo: '2026-11-28T00:00:00.000Z',
  createdAt: '2026-11-27T09:00:00.000Z',
};

export const rateListExample: RateListView = { rates: [rateExample] };
