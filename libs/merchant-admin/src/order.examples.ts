import { OrderView } from '@payments/contracts';
import { statusOf } from '@payments/status-codes';

/** Examples of the OpenAPI document: what a merchant sends and gets back. */
export const createOrderExample = {
  order: {
    merchantOrderId: 'shop-order-1001',
    cost: { amount: '100.00', currency: 'USD' },
    description: 'Order #1001',
  },
  instrumentType: 'bank_transfer',
  payer: { email: 'payer@example.com', phone: '+998901234567' },
};

const ORDER_ID = '0b6f7a3e-2c1d-4e5f-9a8b-7c6d5e4f3a21';

export const orderExample: OrderView = {
  id: ORDER_ID,
  shopId: '5d2c1b0a-9e8f-4a7b-8c6d-5e4f3a2b1c0d',
  status: 'registered',
  ...statusOf('1-01-01'),
  order: {
    merchantOrderId: 'shop-order-1001',
    cost: { amount: '100.00', currency: 'USD' },
    description: 'Order #1001',
  },
  customer: { id: '7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d' },
  instrumentType: 'bank_transfer',
  payer: { email: 'payer@example.com', phone: '+998901234567' },
  data: { payments: [] },
  createdAt: '2026-06-09T10:00:00.000Z',
  updatedAt: '2026-06-09T10:00:00.000Z',
};

export const cancelledOrderExample: OrderView = {
  ...orderExample,
  status: 'cancelled',
  ...statusOf('1-08-01'),
  updatedAt: '2026-06-09T10:05:00.000Z',
};

export const refundedOrderExample: OrderView = {
  ...orderExample,
  status: 'partially_refunded',
  ...statusOf('0-07-02'),
  data: {
    payments: [
      {
        paymentId: 'pay_4e3d2c1b-0a9f-4e8d-8c7b-6a5f4e3d2c1b',
        provider: 'sandbox',
        status: 'success',
        amount: '100.00',
        currency: 'USD',
        ...statusOf('0-01-00'),
        createdAt: '2026-06-09T10:00:01.000Z',
        updatedAt: '2026-06-09T10:00:02.000Z',
      },
    ],
    refunds: [
      {
        refundId: '9c8b7a6f-5e4d-4c3b-8a2f-1e0d9c8b7a6f',
        amount: '40.00',
        currency: 'USD',
        createdAt: '2026-06-09T11:00:00.000Z',
      },
    ],
  },
  updatedAt: '2026-06-09T11:00:00.000Z',
};

/** An order the provider paid with another amount, outside the shop's range: why it waits, and what resolves it. */
export const needActionOrderExample: OrderView = {
  ...orderExample,
  status: 'need_action',
  ...statusOf('2-07-04'),
  order: { ...orderExample.order, reportedCost: { amount: '90.00', currency: 'USD' } },
  needAction: {
    rule: 'amount_outside_range',
    ...statusOf('2-07-04'),
    expected: { amount: '100.00', currency: 'USD' },
    reported: { amount: '90.00', currency: 'USD' },
    allowedRange: { lowerPercent: '2', upperPercent: '5', lowerBound: '98.00', upperBound: '105.00' },
    resolution: {
      autoFinalization: false,
      resolvedBy: 'operator',
      description:
        'Auto-finalization is off for this shop: an operator accepts the reported amount or fails the order.',
    },
  },
  data: {
    payments: [
      {
        paymentId: 'pay_4e3d2c1b-0a9f-4e8d-8c7b-6a5f4e3d2c1b',
        provider: 'sandbox',
        status: 'success',
        amount: '90.00',
        currency: 'USD',
        ...statusOf('2-07-04'),
        createdAt: '2026-06-09T10:00:01.000Z',
        updatedAt: '2026-06-09T10:00:02.000Z',
      },
    ],
  },
  updatedAt: '2026-06-09T10:00:02.000Z',
};

export const orderRefExample = { orderId: ORDER_ID };
export const refundExample = { orderId: ORDER_ID, cost: { amount: '40.00', currency: 'USD' } };

/**
 * What every answer with an order may also hold, beside the examples' members: a crypto order with
 * the amount the provider reported and the one accepted, and payer data that is the merchant's own.
 */
/** A hosted order (issue 20): registered, with the link the payer opens and its expiry. */
export const createHostedOrderExample = {
  order: { merchantOrderId: 'shop-order-1003', cost: { amount: '150000.00', currency: 'UZS' } },
  paymentPageDesign: { format: 'hosted', locale: 'uz' },
  redirectUrls: {
    success: 'https://merchant.example.com/orders/1003/paid',
    failure: 'https://merchant.example.com/orders/1003/not-paid',
  },
  timeLimit: 1800,
};

export const hostedOrderExample: OrderView = {
  ...orderExample,
  order: { merchantOrderId: 'shop-order-1003', cost: { amount: '150000.00', currency: 'UZS' } },
  instrumentType: undefined,
  payer: undefined,
  data: {
    payments: [],
    paymentLink: 'https://pay.example.com/pay/oC2x5Lx3Q1qfN9Y2l3Zt4aZcUjq0XqjK9b0n2m5s8v1w4y7B0D3F6H9J2L5N8P1R4T7',
    expiresAt: '2026-06-09T10:30:00.000Z',
    paymentLinkStatus: 'live',
  },
};

/** shop_hosted for an app method: the instructions the shop shows its payer. */
export const shopHostedOrderExample: OrderView = {
  ...orderExample,
  order: { merchantOrderId: 'shop-order-1004', cost: { amount: '150000.00', currency: 'UZS' } },
  instrumentType: 'wallet',
  payer: undefined,
  data: {
    payments: [],
    instructions: {
      method: 'sandboxpay',
      amount: '150000.00',
      currency: 'UZS',
      deeplinks: {
        app: 'sandboxpay://pay?ref=0b6f7a3e-2c1d-4e5f-9a8b-7c6d5e4f3a21&payment=pay_1c2d&amount=150000.00&currency=UZS',
        universal: 'https://sandbox.example.com/app/pay/pay_1c2d?ref=0b6f7a3e-2c1d-4e5f-9a8b-7c6d5e4f3a21',
      },
      qr: 'https://sandbox.example.com/app/pay/pay_1c2d?ref=0b6f7a3e-2c1d-4e5f-9a8b-7c6d5e4f3a21',
    },
  },
};

export const orderAnswerShapes = {
  variants: [
    hostedOrderExample,
    shopHostedOrderExample,
    {
      ...hostedOrderExample,
      status: 'failed',
      ...statusOf('1-07-08'),
      data: { payments: [], paymentLinkStatus: 'expired' },
    } satisfies OrderView,
    {
      ...refundedOrderExample,
      order: {
        merchantOrderId: 'shop-order-1002',
        cost: { amount: '101.50', currency: 'USDT', tokenStandard: 'TRC20' },
        originalCost: { amount: '100.00', currency: 'USDT', tokenStandard: 'TRC20' },
        reportedCost: { amount: '101.50', currency: 'USDT', tokenStandard: 'TRC20' },
        description: 'Order #1002',
      },
      paymentSettings: { walletType: 'personal' },
      recipient: { merchantBalance: { currency: 'USDT', tokenStandard: 'TRC20' } },
    } satisfies OrderView,
    needActionOrderExample,
    {
      ...needActionOrderExample,
      order: { ...needActionOrderExample.order, cost: { amount: '50.00', currency: 'USDT', tokenStandard: 'TRC20' } },
      needAction: {
        rule: 'currency_differs',
        ...statusOf('2-07-04'),
        expected: { amount: '50', currency: 'USDT', tokenStandard: 'TRC20' },
        reported: { amount: '50', currency: 'USDT', tokenStandard: 'ERC20' },
        allowedRange: { lowerPercent: '2', upperPercent: '5', lowerBound: '49', upperBound: '52.5' },
        resolution: {
          autoFinalization: true,
          resolvedBy: 'operator',
          description:
            'A currency change is never accepted automatically, whatever the shop setting: an operator fails the order.',
        },
      },
    } satisfies OrderView,
    {
      ...needActionOrderExample,
      needAction: {
        rule: 'provider_timeout',
        ...statusOf('1-07-02'),
        expected: { amount: '100.00', currency: 'USD' },
        allowedRange: { lowerPercent: '0', upperPercent: '0', lowerBound: '100.00', upperBound: '100.00' },
        resolution: {
          autoFinalization: true,
          resolvedBy: 'provider_response',
          description:
            'The provider did not answer in time and may have the payment: its late answer resolves the order; an operator may fail it.',
        },
      },
    } satisfies OrderView,
  ],
  open: ['payer'],
};
