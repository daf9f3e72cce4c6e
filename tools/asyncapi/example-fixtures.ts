/** The ids, views and lines the message examples (examples.ts, result-examples.ts) are built from. */
export const ids = {
  shop: '3f6c1b2a-8d4e-4f1a-9c7b-2e5d8a1f4c90',
  company: '7a2e9c41-5b3d-4e8f-a1c6-0d9b8e7f6a52',
  order: 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f',
  refund: '5e4d3c2b-1a09-4f8e-b7d6-c5b4a3928170',
  payout: '9b8a7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
  p2p: '2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f',
  method: '6d5c4b3a-2918-4e7d-a6c5-b4a392817065',
  delivery: 'e8f7a6b5-c4d3-4e2f-9a1b-0c9d8e7f6a5b',
  event: '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0',
} as const;

export const at = '2026-11-24T10:15:30.000Z';
export const later = '2026-11-24T10:15:42.512Z';

export const cost = { amount: '1500.00', currency: 'UZS' };

export const cardMethod = {
  id: ids.method,
  code: 'uzcard-humo',
  instrumentType: 'card',
  cardBrands: ['uzcard', 'humo'],
  dataEntryMode: 'card_form',
  currencies: [{ currency: 'UZS', minAmount: '1000', maxAmount: '50000000' }],
  provider: 'sandbox',
  enabled: true,
  createdAt: at,
  updatedAt: at,
};

export const payoutFields = [
  {
    path: 'payee.cardNumber',
    type: 'string',
    format: 'pan',
    pattern: '^[0-9]{16}$',
    required: true,
    description: 'The card number of the payee',
  },
];

export const orderView = {
  id: ids.order,
  shopId: ids.shop,
  status: 'completed',
  statusCode: '0-01-00',
  statusDescription: 'Paid',
  order: { merchantOrderId: 'inv-2026-000123', cost, description: 'Order 123: two coffees' },
  customer: { id: 'cust-48151623' },
  instrumentType: 'card',
  data: {
    payments: [
      {
        paymentId: 'sbx-pay-77c1',
        provider: 'sandbox',
        status: 'success',
        amount: '1500.00',
        currency: 'UZS',
        statusCode: '0-01-00',
        statusDescription: 'Paid',
        createdAt: at,
        updatedAt: later,
      },
    ],
    refunds: [],
  },
  createdAt: at,
  updatedAt: later,
};

export const payoutView = {
  id: ids.payout,
  shopId: ids.shop,
  status: 'in_progress',
  payout: { merchantPayoutId: 'po-2026-0042', method: 'uzcard-humo', cost: { amount: '250000', currency: 'UZS' } },
  instrumentType: 'card',
  payee: { cardNumber: '860049******1234', name: 'Alisher Navoiy' },
  createdAt: at,
  updatedAt: later,
};

export const p2pView = {
  id: ids.p2p,
  shopId: ids.shop,
  status: 'completed',
  p2p: { merchantP2pId: 'p2p-2026-0007', cost: { amount: '120000', currency: 'UZS' } },
  sender: { customerId: 'cust-48151623', walletId: 'wallet-sender-01' },
  recipient: { customerId: 'cust-16234248', walletId: 'wallet-recipient-02' },
  createdAt: at,
  updatedAt: later,
};

export const deliveryView = {
  id: ids.delivery,
  eventId: ids.event,
  type: 'order.status_changed',
  objectType: 'order',
  objectId: ids.order,
  shopId: ids.shop,
  sequence: 2,
  status: 'delivered',
  url: 'https://merchant.example/payments/callbacks',
  attempts: 1,
  lastResponseStatus: 200,
  lastError: null,
  nextAttemptAt: null,
  createdAt: at,
  deliveredAt: later,
};

export const linkHashExample = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
export const checkoutView = {
  orderId: ids.order,
  shopId: ids.shop,
  shopName: 'Demo Shop',
  merchantOrderId: 'inv-2026-000123',
  status: 'registered',
  statusCode: '1-01-01',
  statusDescription: 'Order registered; awaiting payment.',
  amount: '1500.00',
  currency: 'UZS',
  description: 'Order 123: two coffees',
  expiresAt: later,
  linkStatus: 'live',
  locale: 'uz',
  redirectUrls: { success: 'https://merchant.example/paid', failure: 'https://merchant.example/not-paid' },
};

/** Each message type's example payload. */
/** The operator the backoffice puts on every command of an operator path (decision 301). */
export const operator = { id: '4e1f0a9b-3c2d-4b5a-8e7f-6d5c4b3a2910', name: 'Alice Martin', role: 'operator' };

export const feeLine = {
  shopId: ids.shop,
  method: 'card',
  currency: 'USD',
  percent: '2.5',
  fixed: '0.3',
  minimum: '1',
  updatedAt: at,
};
/** A shop's route for its card method (decision 320): B first for mastercard in USD, then A. */
export const routeSteps = [
  {
    provider: 'sandbox-b',
    when: { brands: ['mastercard'], currencies: ['USD'], minAmount: '1.00', maxAmount: '5000.00' },
  },
  { provider: 'sandbox' },
];
export const routeLine = { shopId: ids.shop, method: 'cards', providers: routeSteps, updatedAt: at };

export const rateLine = {
  id: '42',
  base: 'USD',
  quote: 'USDT-TRC20',
  rate: '0.998',
  source: `operator:${operator.id}`,
  validFrom: '2026-11-24T00:00:00.000Z',
  validTo: '2026-11-25T00:00:00.000Z',
  createdAt: at,
};

export const checkoutPayoutViewExample = {
  payoutId: ids.payout,
  shopId: ids.shop,
  merchantPayoutId: 'po-2026-0042',
  method: 'uzcard-humo',
  status: 'registered',
  statusCode: '1-01-03',
  amount: '250000',
  currency: 'UZS',
  expiresAt: '2026-11-21T11:00:00.000Z',
  linkStatus: 'live',
  locale: 'uz',
  redirectUrls: { success: 'https://merchant.example/payouts/done' },
};
