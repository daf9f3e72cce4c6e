import { sign } from '@payments/callback-signature';
import { statusOf } from '@payments/status-codes';
import { orderExample } from '@payments/merchant-admin';
import { payoutExample } from '@payments/merchant-admin';
import { encodeFeedCursor } from './feed-cursor';

/**
 * Examples of `GET /events` in the OpenAPI document: two status changes as their callbacks carried
 * them, and a change of the shop's balance (feed only, decision 314).
 */
const SHOP_ID = orderExample.shopId;
/** What the example signatures are made with; a shop's real secret is the one its operator gave it. */
const EXAMPLE_SECRET = 'whsec_example';
const SIGNED_AT = Math.floor(Date.UTC(2026, 10, 21, 10, 30) / 1000);

const orderCompleted = JSON.stringify({
  eventId: '4f3e2d1c-0b9a-4876-9543-210fedcba987',
  type: 'order.status_changed',
  objectType: 'order',
  objectId: orderExample.id,
  shopId: SHOP_ID,
  merchantOrderId: orderExample.order.merchantOrderId,
  sequence: 3,
  status: 'completed',
  previousStatus: 'in_progress',
  ...statusOf('0-01-00'),
  cost: orderExample.order.cost,
  occurredAt: '2026-11-21T10:00:01.000Z',
});

const payoutInProgress = JSON.stringify({
  eventId: '8a7b6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c5d',
  type: 'payout.status_changed',
  objectType: 'payout',
  objectId: payoutExample.id,
  shopId: SHOP_ID,
  merchantPayoutId: payoutExample.payout.merchantPayoutId,
  sequence: 2,
  status: 'in_progress',
  previousStatus: 'registered',
  statusCode: null,
  statusDescription: null,
  cost: payoutExample.payout.cost,
  occurredAt: '2026-11-21T10:00:02.500Z',
});

/** The order above, completed, credited to the shop's USDT-TRC20 balance (docs/ledger.md's worked example). */
const LEDGER_TRANSACTION_ID = '6d5c4b3a-2918-4f7e-8d6c-5b4a39281706';
const ledgerTransaction = {
  id: LEDGER_TRANSACTION_ID,
  kind: 'order_completed',
  source: { type: 'order', id: orderExample.id },
  amount: '97.0056',
};
const balanceUpdated = JSON.stringify({
  eventId: '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
  type: 'balance.updated',
  objectType: 'balance',
  objectId: LEDGER_TRANSACTION_ID,
  shopId: SHOP_ID,
  sequence: 1,
  currency: 'USDT-TRC20',
  available: '0',
  pending: '97.0056',
  reserved: '0',
  owed: '0',
  transaction: ledgerTransaction,
  // Every transaction of the ledger's batch that moved this balance (decision 339): here the one credit.
  transactions: [ledgerTransaction],
  occurredAt: '2026-11-21T10:00:01.000Z',
});

export const feedPageExample = {
  events: [
    {
      cursor: encodeFeedCursor(1041),
      eventId: '4f3e2d1c-0b9a-4876-9543-210fedcba987',
      type: 'order.status_changed',
      objectType: 'order',
      objectId: orderExample.id,
      sequence: 3,
      body: orderCompleted,
      signature: sign(EXAMPLE_SECRET, orderCompleted, SIGNED_AT),
    },
    {
      cursor: encodeFeedCursor(1042),
      eventId: '8a7b6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c5d',
      type: 'payout.status_changed',
      objectType: 'payout',
      objectId: payoutExample.id,
      sequence: 2,
      body: payoutInProgress,
      signature: sign(EXAMPLE_SECRET, payoutInProgress, SIGNED_AT),
    },
    {
      cursor: encodeFeedCursor(1043),
      eventId: '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
      type: 'balance.updated',
      objectType: 'balance',
      objectId: LEDGER_TRANSACTION_ID,
      sequence: 1,
      body: balanceUpdated,
      signature: sign(EXAMPLE_SECRET, balanceUpdated, SIGNED_AT),
    },
  ],
  nextCursor: encodeFeedCursor(1043),
  hasMore: false,
};

/** The signature is null only while the gateway's copy of the shop's secret has not reached merchant-callbacks. */
export const feedAnswerShapes = { nullable: ['signature'] };
