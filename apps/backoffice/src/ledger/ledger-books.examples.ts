import { AdjustmentView, BalanceView, ShopTransactionPage } from '@payments/contracts';

const SHOP = '6f1c2a52-3d7e-4b8a-9c1f-2e5d8a7b4c30';
const OPERATOR = { id: '3b8f6a0e-9d2c-4e1a-8f7b-5c4d3e2a1b09', name: 'Ada Admin' };

export const shopBalanceExample: BalanceView = {
  shopId: SHOP,
  balances: [
    { currency: 'USD', available: '1250.4', pending: '97.2', reserved: '51', owed: '0' },
    { currency: 'USDT-TRC20', available: '0', pending: '36.0256', reserved: '0', owed: '1.5' },
  ],
};

export const adjustmentRequestExample = {
  currency: 'USD',
  amount: '25.00',
  reason: 'Goodwill credit for the outage of 2026-11-26, ticket 4411',
};

export const adjustmentDebitExample = {
  currency: 'USD',
  amount: '-10.50',
  reason: 'Chargeback fee of order 1001 the provider billed us',
};

export const adjustmentExample: Omit<AdjustmentView, 'replayed'> = {
  id: '9a2e4c1b-7d3f-4e5a-8b6c-0d1e2f3a4b5c',
  shopId: SHOP,
  currency: 'USD',
  amount: '25',
  reason: adjustmentRequestExample.reason,
  operator: OPERATOR,
  transactionId: '1c3e5a7b-9d2f-4b6a-8c0e-2a4b6c8d0e1f',
  availableAfter: '1275.4',
  createdAt: '2026-11-27T10:20:00.000Z',
};

export const shopTransactionsExample: ShopTransactionPage = {
  items: [
    {
      id: '1c3e5a7b-9d2f-4b6a-8c0e-2a4b6c8d0e1f',
      kind: 'manual_adjustment',
      status: 'posted',
      source: { type: 'adjustment', id: adjustmentExample.id },
      gross: '25',
      fee: '0',
      net: '25',
      operationCurrency: 'USD',
      amount: '25',
      currency: 'USD',
      createdAt: '2026-11-27T10:20:00.000Z',
      adjustment: { reason: adjustmentRequestExample.reason, operator: OPERATOR },
    },
    {
      id: '5e7a9c1d-3f5b-4d7e-9a1c-3e5f7a9b1c2d',
      kind: 'order_completed',
      status: 'posted',
      source: { type: 'order', id: '0b6f7a3e-2c1d-4e5f-9a8b-7c6d5e4f3a21' },
      gross: '100',
      fee: '2.8',
      net: '97.2',
      operationCurrency: 'USD',
      amount: '97.005600',
      currency: 'USDT-TRC20',
      rate: { rate: '0.998', source: 'sandbox-feed', validFrom: '2026-11-27T00:00:00.000Z' },
      createdAt: '2026-11-27T09:00:00.000Z',
      availableOn: '2026-11-28T09:00:00.000Z',
    },
  ],
  nextCursor: 'MjAyNi0xMS0yN1QwOTowMDowMC4wMDBafDVlN2E5YzFk',
};
