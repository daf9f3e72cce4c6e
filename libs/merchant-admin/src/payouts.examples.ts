import { P2pView, PayoutView } from '@payments/contracts';
import { statusOf } from '@payments/status-codes';
import { orderExample } from './order.examples';

/** Examples of the payout and P2P routes in the OpenAPI document. */
const SHOP_ID = orderExample.shopId;

export const createPayoutExample = {
  payout: {
    merchantPayoutId: 'po-1001',
    method: 'wallet-payout',
    cost: { amount: '25.00', currency: 'USD' },
    description: 'Cashback for order 1001',
  },
  instrumentType: 'wallet',
  walletType: 'personal',
  payee: { walletId: 'w-1001', firstName: 'Jane', lastName: 'Doe' },
  callbackUrl: 'https://merchant.example.com/payouts/callback',
};

export const payoutExample: PayoutView = {
  id: '3b9d6c1e-7a2f-4e58-9c0d-1f2e3d4c5b6a',
  shopId: SHOP_ID,
  status: 'registered',
  statusCode: '1-01-03',
  statusDescription: statusOf('1-01-03').statusDescription,
  payout: {
    merchantPayoutId: 'po-1001',
    method: 'wallet-payout',
    cost: { amount: '25.00', currency: 'USD' },
    description: 'Cashback for order 1001',
  },
  instrumentType: 'wallet',
  walletType: 'personal',
  payee: { walletId: 'w-1001', firstName: 'Jane', lastName: 'Doe' },
  callbackUrl: 'https://merchant.example.com/payouts/callback',
  createdAt: '2026-11-21T10:00:00.000Z',
  updatedAt: '2026-11-21T10:00:00.000Z',
};

/** Payout via payment page: only the merchant's id and the cost; the recipient gives the payee on the link. */
export const createHostedPayoutExample = {
  payout: { merchantPayoutId: 'po-1003', cost: { amount: '250000.00', currency: 'UZS' } },
  paymentSettingsAlias: 'humo-payout',
  paymentPageDesign: { locale: 'uz' },
  redirectUrls: {
    success: 'https://merchant.example.com/payouts/1003/done',
    failure: 'https://merchant.example.com/payouts/1003/failed',
  },
  timeLimit: 3600,
};

/** The answer to it: registered, undispatched, with the link and its expiry while it is live. */
export const hostedPayoutExample: PayoutView = {
  id: '7e1d2c3b-4a59-4b68-8c7d-6e5f4a3b2c1d',
  shopId: SHOP_ID,
  status: 'registered',
  statusCode: '1-01-03',
  statusDescription: statusOf('1-01-03').statusDescription,
  payout: { merchantPayoutId: 'po-1003', method: 'humo-payout', cost: { amount: '250000.00', currency: 'UZS' } },
  instrumentType: 'card',
  payee: {},
  createdAt: '2026-11-21T10:00:00.000Z',
  updatedAt: '2026-11-21T10:00:00.000Z',
  data: {
    payoutLink: 'https://checkout.example.com/payout/pfN3q8r2mY7kL0sZ1xW4vB6nC9dE5gH2jK8lP0oI3uT7yR1eA4sD6fG9hJ2kL5zX',
    expiresAt: '2026-11-21T11:00:00.000Z',
    payoutLinkStatus: 'live',
  },
};

export const completedPayoutExample: PayoutView = {
  ...payoutExample,
  status: 'completed',
  statusCode: '0-01-00',
  statusDescription: statusOf('0-01-00').statusDescription,
  updatedAt: '2026-11-21T10:00:02.000Z',
};

export const createP2pExample = {
  p2p: { merchantP2pId: 'p2p-1001', cost: { amount: '10.00', currency: 'USD' }, description: 'Split the bill' },
  sender: { customerId: 'cust-17', cardNumber: '4111111111111111' },
  recipient: { name: 'John Roe', cardNumber: '8600123456789012' },
};

export const p2pExample: P2pView = {
  id: '5c4b3a29-1807-4f6e-8d5c-4b3a29180706',
  shopId: SHOP_ID,
  status: 'registered',
  statusCode: '1-01-05',
  statusDescription: statusOf('1-01-05').statusDescription,
  p2p: { merchantP2pId: 'p2p-1001', cost: { amount: '10.00', currency: 'USD' }, description: 'Split the bill' },
  sender: { customerId: 'cust-17', cardNumber: '411111******1111' },
  recipient: { name: 'John Roe', cardNumber: '860012******9012' },
  createdAt: '2026-11-21T10:00:00.000Z',
  updatedAt: '2026-11-21T10:00:00.000Z',
};

export const resolveTransferExample = { action: 'fail', note: 'Provider confirmed the payout was reversed' };
export const resolvedPayoutExample: PayoutView = {
  ...payoutExample,
  status: 'failed',
  statusCode: '1-07-07',
  statusDescription: statusOf('1-07-07').statusDescription,
};
export const resolvedP2pExample: P2pView = {
  ...p2pExample,
  status: 'completed',
  statusCode: '1-07-06',
  statusDescription: statusOf('1-07-06').statusDescription,
};

/** What every answer with a payout may also hold: a crypto payout, a reported amount; the payee is the method's own fields. */
export const payoutAnswerShapes = {
  variants: [
    {
      ...payoutExample,
      payout: {
        merchantPayoutId: 'po-1002',
        method: 'crypto-payout',
        cost: { amount: '25.00', currency: 'USDT', tokenStandard: 'TRC20' },
        reportedCost: { amount: '24.50', currency: 'USDT', tokenStandard: 'TRC20' },
        cryptoTokenStandard: 'TRC20',
        description: 'Withdrawal',
      },
      instrumentType: 'crypto',
    } satisfies PayoutView,
    hostedPayoutExample,
  ],
  open: ['payee'],
};

/** What every answer with a P2P transaction may also hold: every party member, a reported amount. */
export const p2pAnswerShapes = {
  variants: [
    {
      ...p2pExample,
      p2p: {
        ...p2pExample.p2p,
        cost: { amount: '10.00', currency: 'USDT', tokenStandard: 'TRC20' },
        reportedCost: { amount: '9.50', currency: 'USDT', tokenStandard: 'TRC20' },
      },
      sender: {
        customerId: 'cust-17',
        name: 'Jane Doe',
        email: 'jane@example.com',
        phone: '+998901234567',
        cardNumber: '411111******1111',
        walletId: 'w-17',
      },
      recipient: {
        customerId: 'cust-18',
        name: 'John Roe',
        email: 'john@example.com',
        phone: '+998901234568',
        cardNumber: '860012******9012',
        walletId: 'w-18',
      },
      callbackUrl: 'https://merchant.example.com/p2p/callback',
    } satisfies P2pView,
  ],
};
