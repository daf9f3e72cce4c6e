import { commandTopic, CommandServices, serviceCommandTopics, Topics } from '@payments/contracts';

/**
 * One realistic example per message of docs/asyncapi.yaml: the payload of each message type and the
 * result of each request's reply. tools/asyncapi/asyncapi.spec.ts checks every one against its
 * schema. No card numbers: a payee's card is masked as the services mask it (860049******1234).
 */

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

const at = '2026-11-24T10:15:30.000Z';
const later = '2026-11-24T10:15:42.512Z';

const cost = { amount: '1500.00', currency: 'UZS' };

const cardMethod = {
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

const payoutFields = [
  {
    path: 'payee.cardNumber',
    type: 'string',
    format: 'pan',
    pattern: '^[0-9]{16}$',
    required: true,
    description: 'The card number of the payee',
  },
];

const orderView = {
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

const payoutView = {
  id: ids.payout,
  shopId: ids.shop,
  status: 'in_progress',
  payout: { merchantPayoutId: 'po-2026-0042', method: 'uzcard-humo', cost: { amount: '250000', currency: 'UZS' } },
  instrumentType: 'card',
  payee: { cardNumber: '860049******1234', name: 'Alisher Navoiy' },
  createdAt: at,
  updatedAt: later,
};

const p2pView = {
  id: ids.p2p,
  shopId: ids.shop,
  status: 'completed',
  p2p: { merchantP2pId: 'p2p-2026-0007', cost: { amount: '120000', currency: 'UZS' } },
  sender: { customerId: 'cust-48151623', walletId: 'wallet-sender-01' },
  recipient: { customerId: 'cust-16234248', walletId: 'wallet-recipient-02' },
  createdAt: at,
  updatedAt: later,
};

const deliveryView = {
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

const linkHashExample = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
const checkoutView = {
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
const operator = { id: '4e1f0a9b-3c2d-4b5a-8e7f-6d5c4b3a2910', name: 'Alice Martin', role: 'operator' };

export const payloadExamples: Record<string, unknown> = {
  'order.create': {
    orderId: ids.order,
    shopId: ids.shop,
    merchantOrderId: 'inv-2026-000123',
    cost,
    description: 'Order 123: two coffees',
    instrumentType: 'card',
    callbackUrl: 'https://merchant.example/payments/callbacks',
  },
  'order.get': { orderId: ids.order, shopId: ids.shop },
  'order.get_for_checkout': { orderId: ids.order, linkHash: linkHashExample },
  'order.pay_hosted': {
    orderId: ids.order,
    linkHash: linkHashExample,
    method: 'card',
    card: {
      token: 'card_0f8fad5b-d9cb-469f-a165-70867728950e',
      bin: '986012',
      last4: '4444',
      masked: '986012******4444',
    },
  },
  'order.get_for_operator': { orderId: ids.order, operator },
  'order.list_for_operator': { status: 'need_action', limit: 50, operator },
  'order.get_by_merchant_id': { merchantOrderId: 'inv-2026-000123', shopId: ids.shop },
  'order.cancel': { orderId: ids.order, shopId: ids.shop },
  'order.resolve': {
    orderId: ids.order,
    action: 'accept_reported_amount',
    operatorNote: 'The payer sent 1450 UZS; accepted after a call',
    operator,
  },
  'order.refund': {
    refundId: ids.refund,
    orderId: ids.order,
    shopId: ids.shop,
    cost: { amount: '500.00', currency: 'UZS' },
  },
  'payout.create': {
    payoutId: ids.payout,
    shopId: ids.shop,
    merchantPayoutId: 'po-2026-0042',
    method: 'uzcard-humo',
    provider: 'sandbox',
    cost: { amount: '250000', currency: 'UZS' },
    instrumentType: 'card',
    payee: { cardNumber: '860049******1234', name: 'Alisher Navoiy' },
  },
  'payout.get': { payoutId: ids.payout, shopId: ids.shop },
  'payout.get_for_checkout': { payoutId: ids.payout, linkHash: linkHashExample },
  'payout.submit_details': {
    payoutId: ids.payout,
    linkHash: linkHashExample,
    method: 'humo-payout',
    provider: 'sandbox',
    instrumentType: 'card',
    payee: { cardHolder: 'ALISHER NAVOIY' },
    payeeCards: {
      cardNumber: {
        token: 'card_0f8fad5b-d9cb-469f-a165-70867728950e',
        bin: '986012',
        last4: '4444',
        masked: '986012******4444',
      },
    },
  },
  'payout.get_by_merchant_id': { merchantPayoutId: 'payout-2026-000045', shopId: ids.shop },
  'payout.list_for_operator': { shopId: ids.shop, status: 'need_action', limit: 50, operator },
  'payout.resolve': {
    payoutId: ids.payout,
    action: 'complete',
    operatorNote: 'The provider confirmed it by phone',
    operator,
  },
  'ledger.reserve_payout': {
    payoutId: ids.payout,
    shopId: ids.shop,
    provider: 'sandbox',
    method: 'uzcard-humo',
    cost: { amount: '250000.00', currency: 'UZS' },
  },
  'ledger.release_payout': { payoutId: ids.payout, shopId: ids.shop },
  'ledger.reserve_refund': { refundId: ids.refund, orderId: ids.order, shopId: ids.shop, amount: '40.00' },
  'ledger.release_refund': { refundId: ids.refund, shopId: ids.shop },
  'ledger.get_balance': { shopId: ids.shop },
  'ledger.list_transactions': { shopId: ids.shop, limit: 20 },
  'p2p.create': {
    p2pId: ids.p2p,
    shopId: ids.shop,
    merchantP2pId: 'p2p-2026-0007',
    cost: { amount: '120000', currency: 'UZS' },
    sender: { customerId: 'cust-48151623', walletId: 'wallet-sender-01' },
    recipient: { customerId: 'cust-16234248', walletId: 'wallet-recipient-02' },
  },
  'p2p.get': { p2pId: ids.p2p, shopId: ids.shop },
  'p2p.get_by_merchant_id': { merchantP2pId: 'p2p-2026-000007', shopId: ids.shop },
  'p2p.list_for_operator': { merchantId: 'p2p-2026-000007', limit: 50, operator },
  'p2p.resolve': { p2pId: ids.p2p, action: 'fail', operatorNote: 'The provider never received it', operator },
  'method.payment.list': { shopId: ids.shop },
  'method.payout.list': { shopId: ids.shop, includeDisabled: true },
  'method.payout.fields': { shopId: ids.shop, method: 'uzcard-humo', currency: 'UZS' },
  'method.payout.resolve': { shopId: ids.shop, method: 'uzcard-humo', currency: 'UZS', amount: '250000' },
  'method.create': {
    methodId: ids.method,
    shopId: ids.shop,
    direction: 'payout',
    code: 'uzcard-humo',
    instrumentType: 'card',
    cardBrands: ['uzcard', 'humo'],
    currencies: [{ currency: 'UZS', minAmount: '1000', maxAmount: '50000000' }],
    provider: 'sandbox',
    enabled: true,
    operator,
  },
  'method.update': { methodId: ids.method, shopId: ids.shop, direction: 'payout', enabled: false, operator },
  'method.delete': { methodId: ids.method, shopId: ids.shop, direction: 'payout', operator },
  'callbacks.list': { shopId: ids.shop, status: 'failed', limit: 50, operator },
  'callbacks.feed': { shopId: ids.shop, afterPosition: 41, limit: 100, objectType: 'order' },
  'callbacks.get': { deliveryId: ids.delivery, operator },
  'callbacks.replay': { deliveryId: ids.delivery, operator },
  'callbacks.replay_many': { shopId: ids.shop, status: 'failed', since: '2026-11-24T00:00:00Z', operator },
  'provider.callback.received': {
    callbackId: 'a7b6c5d4-e3f2-4a1b-9c8d-7e6f5a4b3c2d',
    providerCode: 'sandbox',
    receivedAt: later,
    rawBody: `{"id":"sbx-cb-9001","reference":"${ids.order}","status":"success","amount":"1500.00","currency":"UZS"}`,
  },
  'provider.event': {
    providerCode: 'sandbox',
    providerEventId: 'sbx-cb-9001',
    kind: 'payment',
    reference: ids.order,
    paymentId: 'sbx-pay-77c1',
    status: 'success',
    amount: '1500.00',
    currency: 'UZS',
    receivedAt: later,
  },
  'order.status_changed': {
    orderId: ids.order,
    shopId: ids.shop,
    merchantOrderId: 'inv-2026-000123',
    sequence: 3,
    status: 'completed',
    previousStatus: 'in_progress',
    statusCode: '0-01-00',
    statusDescription: 'Paid',
    cost,
    callbackUrl: 'https://merchant.example/payments/callbacks',
  },
  'payout.status_changed': {
    payoutId: ids.payout,
    shopId: ids.shop,
    merchantPayoutId: 'po-2026-0042',
    sequence: 2,
    status: 'in_progress',
    previousStatus: 'registered',
    cost: { amount: '250000', currency: 'UZS' },
  },
  'p2p.status_changed': {
    p2pId: ids.p2p,
    shopId: ids.shop,
    merchantP2pId: 'p2p-2026-0007',
    sequence: 3,
    status: 'completed',
    previousStatus: 'in_progress',
    statusCode: '0-01-00',
    statusDescription: 'Paid',
    cost: { amount: '120000', currency: 'UZS' },
  },
  'ledger.set_fee': {
    shopId: ids.shop,
    method: 'card',
    currency: 'USD',
    percent: '2.5',
    fixed: '0.30',
    minimum: '1.00',
    operator,
  },
  'ledger.list_fees': { shopId: ids.shop, operator },
  'ledger.delete_fee': { shopId: ids.shop, method: 'card', currency: 'USD', operator },
  'ledger.set_settlement': { shopId: ids.shop, settlementDelaySeconds: 0, operator },
  'ledger.get_settlement': { shopId: ids.shop, operator },
  'ledger.set_rate': {
    base: 'USD',
    quote: 'USDT-TRC20',
    rate: '0.998',
    validFrom: '2026-11-24T00:00:00.000Z',
    validTo: '2026-11-25T00:00:00.000Z',
    operator,
  },
  'ledger.list_rates': { base: 'USD', quote: 'USDT-TRC20', operator },
  'shop.settings': {
    shopId: ids.shop,
    companyId: ids.company,
    version: 7,
    amountDeviation: { lowerPercent: '5', upperPercent: '10' },
    autoFinalizeNeedAction: false,
    processingTimeout: { defaultSeconds: 604800, byPaymentSetting: { card: 1800 } },
    useCustomerDataAsPayer: true,
    callbackUrl: 'https://merchant.example/payments/callbacks',
    defaultIntegration: 'hosted',
    redirectDomains: ['merchant.example'],
    payoutViaPaymentPage: true,
    callbackSecret: 'whsec_example_not_a_real_secret',
  },
};

const feeLine = {
  shopId: ids.shop,
  method: 'card',
  currency: 'USD',
  percent: '2.5',
  fixed: '0.3',
  minimum: '1',
  updatedAt: at,
};
const rateLine = {
  id: '42',
  base: 'USD',
  quote: 'USDT-TRC20',
  rate: '0.998',
  source: `operator:${operator.id}`,
  validFrom: '2026-11-24T00:00:00.000Z',
  validTo: '2026-11-25T00:00:00.000Z',
  createdAt: at,
};

/** Each request's example reply result. */
const checkoutPayoutViewExample = {
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

export const resultExamples: Record<string, unknown> = {
  'order.create': {
    ...orderView,
    status: 'registered',
    statusCode: undefined,
    statusDescription: undefined,
    data: { payments: [] },
  },
  'order.get': orderView,
  'order.get_for_checkout': checkoutView,
  'payout.get_for_checkout': checkoutPayoutViewExample,
  'payout.submit_details': {
    ...checkoutPayoutViewExample,
    method: 'humo-payout',
    linkStatus: 'used',
    maskedPayee: '986012******4444',
  },
  'order.pay_hosted': { ...checkoutView, status: 'in_progress', linkStatus: 'used', maskedCard: '986012******4444' },
  'order.get_for_operator': orderView,
  'order.list_for_operator': { items: [orderView], nextCursor: null },
  'order.get_by_merchant_id': orderView,
  'order.cancel': {
    ...orderView,
    status: 'cancelled',
    statusCode: '0-05-00',
    statusDescription: 'Cancelled',
    data: { payments: [] },
  },
  'order.resolve': orderView,
  'order.refund': {
    ...orderView,
    status: 'partially_refunded',
    data: {
      ...orderView.data,
      refunds: [{ refundId: ids.refund, amount: '500.00', currency: 'UZS', createdAt: later }],
    },
  },
  'payout.create': { ...payoutView, status: 'registered' },
  'payout.get': payoutView,
  'payout.get_by_merchant_id': payoutView,
  'payout.list_for_operator': { items: [payoutView], nextCursor: null },
  'payout.resolve': { ...payoutView, status: 'completed' },
  'ledger.reserve_payout': { payoutId: ids.payout, currency: 'UZS', amount: '250000', fee: '2500', status: 'held' },
  'ledger.release_payout': { payoutId: ids.payout, released: true },
  'ledger.reserve_refund': {
    refundId: ids.refund,
    orderId: ids.order,
    currency: 'USDT-TRC20',
    amount: '36.0256',
    status: 'held',
  },
  'ledger.release_refund': { refundId: ids.refund, released: true },
  'ledger.get_balance': {
    shopId: ids.shop,
    balances: [{ currency: 'USDT-TRC20', available: '36.0256', pending: '0', reserved: '51' }],
  },
  'ledger.list_transactions': {
    items: [
      {
        id: '5b0c3f9e-7d1a-4c2b-8e6f-9a0b1c2d3e4f',
        kind: 'order_completed',
        status: 'posted',
        source: { type: 'order', id: ids.order },
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
    nextCursor: null,
  },
  'p2p.create': { ...p2pView, status: 'registered' },
  'p2p.get': p2pView,
  'p2p.get_by_merchant_id': p2pView,
  'p2p.list_for_operator': { items: [p2pView], nextCursor: null },
  'p2p.resolve': { ...p2pView, status: 'failed' },
  'method.payment.list': { shopId: ids.shop, methods: [{ ...cardMethod, code: 'uzcard-humo-pay' }] },
  'method.payout.list': { shopId: ids.shop, methods: [cardMethod] },
  'method.payout.fields': { method: 'uzcard-humo', currency: 'UZS', fields: payoutFields },
  'method.payout.resolve': { method: cardMethod, fields: payoutFields },
  'method.create': cardMethod,
  'method.update': { ...cardMethod, enabled: false, updatedAt: later },
  'method.delete': cardMethod,
  'callbacks.list': { items: [deliveryView], nextCursor: '1042' },
  'callbacks.feed': {
    events: [
      {
        position: 42,
        eventId: ids.event,
        type: 'order.status_changed',
        objectType: 'order',
        objectId: ids.order,
        sequence: 2,
        body: JSON.stringify({
          type: 'order.status_changed',
          objectType: 'order',
          id: ids.order,
          status: 'completed',
          sequence: 2,
        }),
        signature: 't=1795521600,v1=5f0c6f0a1b2c3d4e5f60718293a4b5c6d7e8f9012a3b4c5d6e7f8091a2b3c4d5',
      },
    ],
    lastPosition: 42,
    hasMore: false,
  },
  'callbacks.get': {
    ...deliveryView,
    body: { type: 'order.status_changed', objectType: 'order', id: ids.order, status: 'completed', sequence: 2 },
    attemptLog: [{ attempt: 1, at: later, url: deliveryView.url, responseStatus: 200, error: null, latencyMs: 84.2 }],
  },
  'callbacks.replay': { ...deliveryView, status: 'pending', nextAttemptAt: later },
  'callbacks.replay_many': { replayed: 1, deliveryIds: [ids.delivery] },
  'ledger.set_fee': feeLine,
  'ledger.list_fees': { shopId: ids.shop, fees: [feeLine] },
  'ledger.delete_fee': { deleted: true },
  'ledger.set_settlement': { shopId: ids.shop, settlementDelaySeconds: 0, default: false },
  'ledger.get_settlement': { shopId: ids.shop, settlementDelaySeconds: 86400, default: true },
  'ledger.set_rate': rateLine,
  'ledger.list_rates': { rates: [rateLine] },
};

/** An example of the refusal a reply can carry, shown on every reply message. */
export const refusalExample = {
  code: 'conflict',
  detail: 'The order is completed and cannot be cancelled',
  extensions: { status: 'completed' },
};

/** Example keys, by topic; each audience's command topic of a service is keyed as its merchants' one. */
const merchantKeyExamples: Record<string, string> = {
  [Topics.ordersCommands]: ids.order,
  [Topics.payoutsCommands]: ids.payout,
  [Topics.p2pCommands]: ids.p2p,
  [Topics.methodsQueries]: ids.shop,
  [Topics.ledgerCommands]: ids.shop,
  [Topics.merchantCallbacksCommands]: ids.delivery,
  [Topics.providerCallbacksReceived]: ids.order,
  [Topics.providerEvents]: ids.order,
  [Topics.ordersEvents]: ids.order,
  [Topics.payoutsEvents]: ids.payout,
  [Topics.p2pEvents]: ids.p2p,
  [Topics.shopsSettings]: ids.shop,
};

/** The topics of a service with no merchants' path, keyed by what they are about. */
const operatorOnlyKeyExamples: Record<string, string> = {
  // A fee or settlement is keyed by its shop, a rate by its pair (USD/USDT-TRC20).
  [commandTopic('ledger', 'operator')]: ids.shop,
};

export const keyExamples: Record<string, string> = {
  ...merchantKeyExamples,
  ...Object.fromEntries(
    CommandServices.flatMap((s) =>
      serviceCommandTopics(s).map((t) => [t, merchantKeyExamples[commandTopic(s, 'merchant')]]),
    ),
  ),
  ...operatorOnlyKeyExamples,
};
