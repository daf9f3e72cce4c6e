import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { envelope, Envelope } from '@payments/contracts';
import { eventually, http, testKafka } from '@payments/testing';
import { aShop, anOrderRequest, TestShop } from '../support/merchant';
import { TEST_OPS_TOKEN, TestStack } from '../support/stack';
import { untilStatus } from '../support/wait';

/**
 * Orders folds provider events a partition batch at a time (issue 13): one transaction per batch,
 * each order's events in offset order, a duplicate applied once, and an event for an unknown order
 * dead-lettered alone while its neighbours are applied.
 */
describe('provider events: a partition batch folded in one transaction', () => {
  let stack: TestStack;
  let shop: TestShop;
  let db: Client;

  beforeAll(async () => {
    stack = await TestStack.start();
    shop = await aShop(stack.gateway!.url, 'Batch Shop');
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  const read = (id: string) => async () =>
    (await http('GET', `${stack.gateway!.url}/order/${id}`, { token: shop.apiKey })).body;

  /** An order the sandbox took and never answers (.99): in_progress, waiting for its provider event. */
  async function aWaitingOrder(): Promise<{ id: string; paymentId: string }> {
    const created = await http('POST', `${stack.gateway!.url}/order`, {
      token: shop.apiKey,
      body: anOrderRequest({ amount: '100.99' }),
    });
    const waiting = await untilStatus(read(created.body.id), 'in_progress', 'order in_progress');
    return { id: created.body.id, paymentId: waiting.data.payments[0].paymentId };
  }

  const providerEvent = (reference: string, paymentId: string | undefined, status: string) =>
    envelope({
      type: 'provider.event',
      occurredAt: new Date(),
      payload: {
        providerCode: 'sandbox',
        providerEventId: `sbx-batch-${randomUUID()}`,
        kind: 'payment',
        reference,
        ...(paymentId ? { paymentId } : {}),
        status,
        amount: '100.99',
        currency: 'USD',
        receivedAt: new Date().toISOString(),
      },
    });

  /** All in one produce request to one partition: the orders consumer fetches them as one batch. */
  async function sendTogether(events: Envelope[]): Promise<void> {
    const producer = testKafka('test-provider-batch').producer();
    await producer.connect();
    await producer.send({
      topic: `${stack.prefix}provider.events`,
      acks: -1,
      messages: events.map((e) => ({
        key: (e.payload as { reference: string }).reference,
        value: JSON.stringify(e),
        partition: 0,
      })),
    });
    await producer.disconnect();
  }

  it('when one batch holds two orders’ events, a duplicate and an event for an unknown order, then each order folds its events in order, once, and only the unknown one is dead-lettered', async () => {
    const a = await aWaitingOrder();
    const b = await aWaitingOrder();
    const unknown = randomUUID();
    const aSuccess = providerEvent(a.id, a.paymentId, 'success');
    const aStalePending = providerEvent(a.id, a.paymentId, 'pending');
    const stray = providerEvent(unknown, undefined, 'success');
    // b's callback names no paymentId: it belongs to the attempt we sent.
    const bFailed = providerEvent(b.id, undefined, 'failed');
    await sendTogether([aSuccess, stray, bFailed, aSuccess, aStalePending]);

    const aDone = await untilStatus(read(a.id), 'completed', 'order a completed');
    const bDone = await untilStatus(read(b.id), 'failed', 'order b failed');
    expect(aDone.data.payments).toEqual([expect.objectContaining({ paymentId: a.paymentId, status: 'success' })]);
    expect(bDone.data.payments).toEqual([expect.objectContaining({ paymentId: b.paymentId, status: 'failed' })]);

    const letter = await eventually(
      async () => {
        const page = await http('GET', `${stack.backoffice!.url}/ops/v1/dead-letters?topic=provider.events.dlq`, {
          token: TEST_OPS_TOKEN,
        });
        return page.body.items.find((d: { key: string }) => d.key === unknown) as
          { eventId: string; error: string; attempts: number } | undefined;
      },
      20_000,
      'the dead letter of the unknown order',
    );
    expect(letter).toMatchObject({
      eventId: stray.eventId,
      error: `provider event for unknown order ${unknown}`,
      attempts: 1,
    });

    // Each event recorded once, each status change published once, with the order's sequence.
    const inbox = await db.query(
      'SELECT event_id FROM orders.inbox WHERE event_id = ANY($1::uuid[]) ORDER BY event_id',
      [[aSuccess, aStalePending, stray, bFailed].map((e) => e.eventId)],
    );
    expect(inbox.rows.map((r) => r.event_id).sort()).toEqual(
      [aSuccess, aStalePending, bFailed].map((e) => e.eventId).sort(),
    );
    const changes = await db.query(
      `SELECT envelope->'payload'->>'orderId' AS order_id, envelope->'payload'->>'status' AS status,
              envelope->'payload'->>'previousStatus' AS previous, envelope->>'causationId' AS caused_by
         FROM orders.outbox WHERE envelope->>'causationId' = ANY($1) ORDER BY id`,
      [[aSuccess, aStalePending, bFailed].map((e) => e.eventId)],
    );
    expect(changes.rows).toEqual([
      { order_id: a.id, status: 'completed', previous: 'in_progress', caused_by: aSuccess.eventId },
      { order_id: b.id, status: 'failed', previous: 'in_progress', caused_by: bFailed.eventId },
    ]);
  });

  it('when a batch reports on a recorded attempt without changing the order, then its row stays as it was; an attempt first seen unchanged and then changing the order ends as the change left it', async () => {
    const a = await aWaitingOrder();
    const attemptsOf = async () =>
      (
        await db.query(
          `SELECT payment_id, status, status_code, created_at, updated_at FROM orders.payment_attempts
            WHERE order_id = $1 ORDER BY created_at, payment_id`,
          [a.id],
        )
      ).rows;
    const [sent] = await attemptsOf();
    expect(sent.payment_id).toBe(a.paymentId);
    // A manual attempt at the provider (a payment id we never sent): first a pending, then its success.
    const manual = `manual-${randomUUID()}`;
    await sendTogether([
      providerEvent(a.id, a.paymentId, 'pending'),
      providerEvent(a.id, manual, 'pending'),
      providerEvent(a.id, manual, 'success'),
    ]);

    await untilStatus(read(a.id), 'completed', 'order a completed');
    const order = await db.query('SELECT status_code FROM orders.orders WHERE id = $1', [a.id]);
    const rows = await attemptsOf();
    expect(rows).toHaveLength(2);
    expect(rows.find((r) => r.payment_id === a.paymentId)).toEqual(sent);
    expect(rows.find((r) => r.payment_id === manual)).toMatchObject({
      status: 'success',
      status_code: order.rows[0].status_code,
    });
  });
});
