import type { MethodListView, MethodView, PayoutFieldsView } from '@payments/contracts';
import { requiredPayoutFields } from '@payments/methods-domain';
import { orderExample } from './order.examples';

/** Examples of the methods routes in the OpenAPI document; the same shop as the order examples. */
const SHOP_ID = orderExample.shopId;

const uzcardPayout: MethodView = {
  id: '7b1e4c2a-3d5f-4a6b-9c8d-0e1f2a3b4c5d',
  code: 'uzcard-payout',
  instrumentType: 'card',
  dataEntryMode: 'card_form',
  cardBrands: ['humo', 'uzcard'],
  currencies: [{ currency: 'UZS', minAmount: '1000.00', maxAmount: '5000000.00' }],
  provider: 'sandbox',
  enabled: true,
  createdAt: '2026-06-01T09:00:00.000Z',
  updatedAt: '2026-06-01T09:00:00.000Z',
};

const walletPayout: MethodView = {
  id: '8c2f5d3b-4e6a-4b7c-8d9e-1f2a3b4c5d6e',
  code: 'wallet-payout',
  instrumentType: 'wallet',
  dataEntryMode: 'instruction',
  walletTypes: ['personal', 'company'],
  currencies: [{ currency: 'UZS', maxAmount: '10000000.00' }],
  provider: 'sandbox',
  enabled: true,
  createdAt: '2026-06-01T09:05:00.000Z',
  updatedAt: '2026-06-01T09:05:00.000Z',
};

const usdtPayout: MethodView = {
  id: '9d3a6e4c-5f7b-4c8d-9e0f-2a3b4c5d6e7f',
  code: 'usdt-trc20',
  instrumentType: 'crypto',
  dataEntryMode: 'instruction',
  currencies: [{ currency: 'USDT', tokenStandard: 'TRC20', minAmount: '10' }],
  provider: 'sandbox',
  enabled: true,
  createdAt: '2026-06-01T09:10:00.000Z',
  updatedAt: '2026-06-01T09:10:00.000Z',
};

const cardPayment: MethodView = {
  id: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
  code: 'cards',
  instrumentType: 'card',
  dataEntryMode: 'card_form',
  cardBrands: ['visa', 'mastercard', 'humo', 'uzcard'],
  currencies: [{ currency: 'UZS' }, { currency: 'USD', minAmount: '1.00', maxAmount: '10000.00' }],
  provider: 'sandbox',
  enabled: true,
  createdAt: '2026-06-01T08:00:00.000Z',
  updatedAt: '2026-06-01T08:00:00.000Z',
};

const mobilePayment: MethodView = {
  id: '2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e',
  code: 'mobile',
  instrumentType: 'mobile_top_up',
  dataEntryMode: 'instruction',
  currencies: [{ currency: 'UZS', maxAmount: '1000000.00' }],
  provider: 'sandbox',
  enabled: true,
  createdAt: '2026-06-01T08:05:00.000Z',
  updatedAt: '2026-06-01T08:05:00.000Z',
};

export const paymentMethodsExample: MethodListView = { shopId: SHOP_ID, methods: [cardPayment, mobilePayment] };
export const payoutMethodsExample: MethodListView = {
  shopId: SHOP_ID,
  methods: [uzcardPayout, walletPayout, usdtPayout],
};

/** Operators also see disabled methods. */
export const opsPayoutMethodsExample: MethodListView = {
  shopId: SHOP_ID,
  methods: [uzcardPayout, { ...walletPayout, enabled: false, updatedAt: '2026-06-02T12:00:00.000Z' }, usdtPayout],
};
export const opsPaymentMethodsExample: MethodListView = paymentMethodsExample;

export const payoutFieldsRequestExample = { payoutSettings: { method: 'uzcard-payout', currency: 'UZS' } };

/** Computed by the same rule the methods service applies, so the example cannot drift from the answer. */
export const payoutFieldsExample: PayoutFieldsView = {
  method: 'uzcard-payout',
  currency: 'UZS',
  fields: requiredPayoutFields({ instrumentType: 'card', currency: 'UZS', cardBrands: ['humo', 'uzcard'] }),
};

export const createPaymentMethodExample = {
  code: 'cards',
  instrumentType: 'card',
  dataEntryMode: 'card_form',
  cardBrands: ['visa', 'mastercard', 'humo', 'uzcard'],
  currencies: [{ currency: 'UZS' }, { currency: 'USD', minAmount: '1.00', maxAmount: '10000.00' }],
  provider: 'sandbox',
};
export const createdPaymentMethodExample: MethodView = cardPayment;

export const createPayoutMethodExample = {
  code: 'uzcard-payout',
  instrumentType: 'card',
  dataEntryMode: 'card_form',
  cardBrands: ['humo', 'uzcard'],
  currencies: [{ currency: 'UZS', minAmount: '1000.00', maxAmount: '5000000.00' }],
  provider: 'sandbox',
  enabled: true,
};
export const createdPayoutMethodExample: MethodView = uzcardPayout;

export const updatePaymentMethodExample = {
  currencies: [{ currency: 'UZS' }, { currency: 'USD', minAmount: '1.00', maxAmount: '20000.00' }],
};
export const updatedPaymentMethodExample: MethodView = {
  ...cardPayment,
  currencies: [{ currency: 'UZS' }, { currency: 'USD', minAmount: '1.00', maxAmount: '20000.00' }],
  updatedAt: '2026-06-03T10:00:00.000Z',
};

export const updatePayoutMethodExample = { enabled: false };
export const updatedPayoutMethodExample: MethodView = {
  ...uzcardPayout,
  enabled: false,
  updatedAt: '2026-06-03T10:00:00.000Z',
};
