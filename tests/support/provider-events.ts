import { randomUUID } from 'node:crypto';
import { envelope, Envelope } from '@payments/contracts';
import { http } from '@payments/testing';
import { anOrderRequest, TestShop } from './merchant';
import { untilStatus } from './wait';

/** An order waiting for its provider's answer, and the provider event that would complete it. */
export interface UnansweredOrder {
  id: string;
  /** The order as its merchant reads it (GET /order/:id). */
  read: () => Promise<any>;
  /** A `provider.event` of the sandbox that pays the order in full: not sent, for the test to deliver. */
  event: Envelope;
}

/**
 * An order the sandbox took and never answered (an amount ending in .99): in_progress, waiting for
 * its provider event, which is returned for the test to send (or dead-letter) itself.
 */
export async function anUnansweredOrder(gatewayUrl: string, shop: TestShop, amount: string): Promise<UnansweredOrder> {
  const created = await http('POST', `${gatewayUrl}/order`, {
    token: shop.apiKey,
    body: anOrderRequest({ amount }),
  });
  const read = async () => (await http('GET', `${gatewayUrl}/order/${created.body.id}`, { token: shop.apiKey })).body;
  const waiting = await untilStatus(read, 'in_progress', 'order in_progress');
  const event = envelope({
    type: 'provider.event',
    occurredAt: new Date(),
    payload: {
      providerCode: 'sandbox',
      providerEventId: `sbx-dlq-${randomUUID()}`,
      kind: 'payment',
      reference: created.body.id,
      paymentId: waiting.data.payments[0].paymentId,
      status: 'success',
      amount,
      currency: 'USD',
      receivedAt: new Date().toISOString(),
    },
  });
  return { id: created.body.id, read, event };
}
