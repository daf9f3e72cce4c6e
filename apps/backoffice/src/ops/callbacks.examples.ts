import { DeliveryDetailView, DeliveryPage, DeliveryView, ReplayResult } from '@payments/contracts';
import { statusOf } from '@payments/status-codes';
import { orderExample } from '@payments/merchant-admin';

/** Examples of the operator merchant-callback routes in the OpenAPI document. */
const SHOP_ID = orderExample.shopId;

export const deliveryExample: DeliveryView = {
  id: '9c8b7a6f-5e4d-4c3b-8a29-1f0e9d8c7b6a',
  eventId: '4f3e2d1c-0b9a-4876-9543-210fedcba987',
  type: 'order.status_changed',
  objectType: 'order',
  objectId: orderExample.id,
  shopId: SHOP_ID,
  sequence: 3,
  status: 'delivered',
  url: 'https://merchant.example.com/payments/callback',
  attempts: 2,
  lastResponseStatus: 200,
  lastError: null,
  nextAttemptAt: null,
  createdAt: '2026-11-21T10:00:01.000Z',
  deliveredAt: '2026-11-21T10:00:03.120Z',
};

export const deliveryPageExample: DeliveryPage = { items: [deliveryExample], nextCursor: '1042' };

export const deliveryDetailExample: DeliveryDetailView = {
  ...deliveryExample,
  body: {
    eventId: deliveryExample.eventId,
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
  },
  attemptLog: [
    {
      attempt: 1,
      at: '2026-11-21T10:00:01.050Z',
      url: 'https://merchant.example.com/payments/callback',
      responseStatus: 503,
      error: null,
      latencyMs: 41,
    },
    {
      attempt: 2,
      at: '2026-11-21T10:00:03.080Z',
      url: 'https://merchant.example.com/payments/callback',
      responseStatus: 200,
      error: null,
      latencyMs: 38,
    },
  ],
};

export const replayOneExample = { reason: 'Merchant fixed their endpoint; resend' };
export const replayedDeliveryExample: DeliveryView = {
  ...deliveryExample,
  status: 'pending',
  nextAttemptAt: '2026-11-21T12:00:00.000Z',
  deliveredAt: null,
};
export const replayManyExample = { shopId: SHOP_ID, status: 'failed', since: '2026-11-20T00:00:00Z' };
export const replayResultExample: ReplayResult = { replayed: 1, deliveryIds: [deliveryExample.id] };

/**
 * What the delivery answers may also hold: null where nothing happened yet, and the callback body,
 * whose members depend on its object type (docs/merchant-callbacks.md describes each).
 */
export const deliveryAnswerShapes = {
  nullable: [
    'url',
    'lastResponseStatus',
    'lastError',
    'nextAttemptAt',
    'deliveredAt',
    'responseStatus',
    'error',
    'nextCursor',
    'previousStatus',
  ],
  open: ['body'],
};
