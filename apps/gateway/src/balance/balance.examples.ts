import { BalanceTransactionPage, BalanceView } from '@payments/contracts';
import { orderExample } from '@payments/merchant-admin';

/** Examples of `GET /balance` and `GET /balance/transactions`: docs/ledger.md's worked example. */
export const balanceExample: BalanceView = {
  shopId: orderExample.shopId,
  balances: [
    { currency: 'USD', available: '120.5', pending: '40', reserved: '0', owed: '0' },
    // A P2P fee its available balance could not cover: 1.5 owed (decision 345), available never below zero.
    { currency: 'USDT-TRC20', available: '0', pending: '36.0256', reserved: '51', owed: '1.5' },
  ],
};

export const balanceTransactionsExample: BalanceTransactionPage = {
  items: [
    {
      id: '2c7d9e4f-1a3b-4c5d-8e9f-0a1b2c3d4e5f',
      kind: 'payout_reserved',
      status: 'posted',
      source: { type: 'payout', id: '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a' },
      gross: '51',
      fee: '1',
      net: '50',
      operationCurrency: 'USDT-TRC20',
      amount: '-51',
      currency: 'USDT-TRC20',
      createdAt: '2026-11-28T12:00:00.000Z',
    },
    {
      // The credit below came due alone and settled while the shop owed 1.5 (a P2P fee): paid first
      // (decision 348), 95.5056 available. Credits due in the same sweep settle as one (decision 351).
      id: '8e1f4a2b-3c5d-4e6f-9a0b-7c8d9e0f1a2b',
      kind: 'settlement',
      status: 'posted',
      source: { type: 'settlement', id: '8e1f4a2b-3c5d-4e6f-9a0b-7c8d9e0f1a2b' },
      credits: 1,
      gross: '97.0056',
      fee: '0',
      net: '97.0056',
      operationCurrency: 'USDT-TRC20',
      amount: '97.0056',
      currency: 'USDT-TRC20',
      repaid: '1.5',
      createdAt: '2026-11-28T10:00:05.000Z',
      availableOn: '2026-11-28T10:00:05.000Z',
    },
    {
      id: '5b0c3f9e-7d1a-4c2b-8e6f-9a0b1c2d3e4f',
      kind: 'order_completed',
      status: 'posted',
      source: { type: 'order', id: orderExample.id },
      gross: '100',
      fee: '2.8',
      net: '97.2',
      operationCurrency: 'USD',
      amount: '97.0056',
      currency: 'USDT-TRC20',
      rate: { rate: '0.998', source: 'sandbox-feed', validFrom: '2026-11-27T00:00:00.000Z' },
      createdAt: '2026-11-27T10:00:00.000Z',
      availableOn: '2026-11-28T10:00:00.000Z',
    },
  ],
  nextCursor: 'MjAyNi0xMS0yN1QxMDowMDowMC4wMDBafDViMGMzZjllLTdkMWEtNGMyYi04ZTZmLTlhMGIxYzJkM2U0Zg',
};
