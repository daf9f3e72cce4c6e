import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { envelope } from '@payments/contracts';
import { eventually, http, testKafka } from '@payments/testing';
import { aShop, TestShop } from '../support/merchant';
import { anUnansweredOrder } from '../support/provider-events';
import { TEST_OPS_TOKEN, TestStack } from '../support/stack';
import { untilStatus } from '../support/wait';

/**
 * Dead letters through the operator API (issue 15 item 3): the backoffice copies every `.dlq` message
 * with its error and origin; an operator redrives one to its topic (once: a second redrive is
 * skipped and the event is applied once) or discards one with a reason; a viewer does neither.
 */
describe('dead letters: listed, redriven once, discarded with a reason', () => {
  let stack: TestStack;
  let shop: TestShop;
  let db: Client;
  let viewerToken: string;

  beforeAll(async () => {
    stack = await TestStack.start();
    shop = await aShop(stack.gateway!.url, 'Dead Letter Shop');
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    viewerToken = (await ops('POST', '/operators', { name: 'Vera Viewer', role: 'viewer' })).body.token;
  });

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  function ops(method: string, path: string, body?: unknown, token = TEST_OPS_TOKEN) {
    return http(method, `${stack.backoffice!.url}/ops/v1${path}`, { token, body });
  }

  /** Writes a message to `<topic>.dlq` as a consumer that gave up on it would. */
  async function deadLetter(topic: string, key: string, value: string, originalTopic = topic): Promise<void> {
    const producer = testKafka('test-dlq').producer();
    await producer.connect();
    await producer.send({
      topic: `${stack.prefix}${topic}.dlq`,
      messages: [
        {
          key,
          value,
          headers: {
            'dlq-error': 'handler failed: the database was down',
            'dlq-original-topic': originalTopic,
            'dlq-original-partition': '0',
            'dlq-original-offset': '7',
            'dlq-consumer-group': 'orders',
            'dlq-attempts': '5',
            'dlq-at': new Date().toISOString(),
          },
        },
      ],
    });
    await producer.disconnect();
  }

  const openOf = (key: string) =>
    eventually(
      async () => {
        const page = await ops('GET', '/dead-letters?topic=provider.events.dlq&status=open');
        return page.body.items.find((d: { key: string }) => d.key === key) as
          { id: string; eventId: string } | undefined;
      },
      20_000,
      `the dead letter of ${key}`,
    );

  it('when a provider event was dead-lettered, then an operator redrives it and it is applied once; a second redrive is skipped; a viewer is refused', async () => {
    // An order the sandbox took and never answered (.99): in_progress, waiting for its provider event.
    const { id, read, event } = await anUnansweredOrder(stack.gateway!.url, shop, '100.99');
    await deadLetter('provider.events', id, JSON.stringify(event));
    const letter = await openOf(id);
    const listed = (await ops('GET', `/dead-letters/${letter.id}`)).body;
    expect(listed).toMatchObject({
      topic: 'provider.events.dlq',
      originalTopic: 'provider.events',
      eventId: event.eventId,
      type: 'provider.event',
      error: 'handler failed: the database was down',
      consumerGroup: 'orders',
      attempts: 5,
      status: 'open',
      redrivable: true,
    });

    const refused = await ops('POST', '/dead-letters/redrive', { ids: [letter.id] }, viewerToken);
    expect(refused.status).toBe(403);
    expect((await ops('GET', `/dead-letters/${letter.id}`)).body.status).toBe('open');

    const first = await ops('POST', '/dead-letters/redrive', { ids: [letter.id], reason: 'The database is back' });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ redriven: [letter.id], skipped: [] });
    await untilStatus(read, 'completed', 'order completed by the redriven event');

    const second = await ops('POST', '/dead-letters/redrive', { ids: [letter.id] });
    expect(second.body).toEqual({
      redriven: [],
      skipped: [{ id: letter.id, status: 'redriven', why: 'already redriven' }],
    });
    const sent = await db.query('SELECT count(*)::int AS n FROM backoffice.outbox WHERE event_id = $1', [
      event.eventId,
    ]);
    expect(sent.rows[0].n).toBe(1);
    const applied = await db.query('SELECT count(*)::int AS n FROM orders.inbox WHERE event_id = $1', [event.eventId]);
    expect(applied.rows[0].n).toBe(1);
    expect((await ops('GET', `/dead-letters/${letter.id}`)).body).toMatchObject({
      status: 'redriven',
      resolvedBy: 'OPS_TOKEN',
      reason: 'The database is back',
    });
    // One record for the dead letter redriven, with it before and after; the skipped second one: none.
    const audit = await ops('GET', `/audit?action=dead-letter.redrive&objectId=${letter.id}`);
    expect(audit.body.items).toHaveLength(1);
    expect(audit.body.items[0]).toMatchObject({
      object: { type: 'dead-letter', id: letter.id },
      before: { id: letter.id, status: 'open', eventId: event.eventId },
      after: { id: letter.id, status: 'redriven', resolvedBy: 'OPS_TOKEN' },
      reason: 'The database is back',
    });
  });

  it('when a dead letter is not a valid envelope, then it cannot be redriven, and it is discarded only with a reason', async () => {
    const key = randomUUID();
    await deadLetter('provider.events', key, '{"not": "an envelope"');
    const letter = await openOf(key);
    expect((await ops('GET', `/dead-letters/${letter.id}`)).body).toMatchObject({ redrivable: false, eventId: null });
    expect((await ops('POST', '/dead-letters/redrive', { ids: [letter.id] })).body.skipped).toEqual([
      { id: letter.id, status: 'open', why: 'not a valid envelope' },
    ]);

    const noReason = await ops('POST', `/dead-letters/${letter.id}/discard`, {});
    expect(noReason.status).toBe(400);
    expect(new Set(noReason.body.errors.map((e: { path: string }) => e.path))).toEqual(new Set(['reason']));
    const discarded = await ops('POST', `/dead-letters/${letter.id}/discard`, { reason: 'Garbage from a test tool' });
    expect(discarded.status).toBe(200);
    expect(discarded.body).toMatchObject({ status: 'discarded', reason: 'Garbage from a test tool' });
    const again = await ops('POST', `/dead-letters/${letter.id}/discard`, { reason: 'Again' });
    expect(again.body).toEqual(discarded.body);
    const record = (await ops('GET', `/audit?action=dead-letter.discard&objectId=${letter.id}`)).body.items;
    expect(record[record.length - 1]).toMatchObject({
      before: { status: 'open' },
      after: { status: 'discarded' },
      reason: 'Garbage from a test tool',
    });
    expect((await ops('GET', '/dead-letters/not-an-id')).status).toBe(404);
  });

  it('when a dead letter names another topic, then it is never redriven there', async () => {
    const providerEvent = () =>
      envelope({
        type: 'provider.event',
        occurredAt: new Date(),
        payload: {
          providerCode: 'sandbox',
          providerEventId: `sbx-dlq-${randomUUID()}`,
          kind: 'payment',
          reference: randomUUID(),
          paymentId: randomUUID(),
          status: 'success',
          amount: '1.00',
          currency: 'USD',
          receivedAt: new Date().toISOString(),
        },
      });
    // The header of a planted message names a command topic: the origin is the DLQ's own topic.
    const key = randomUUID();
    const planted = providerEvent();
    await deadLetter('provider.events', key, JSON.stringify(planted), 'orders.commands');
    const letter = await openOf(key);
    expect((await ops('GET', `/dead-letters/${letter.id}`)).body).toMatchObject({
      originalTopic: 'provider.events',
      redrivable: false,
      error:
        'handler failed: the database was down (its dlq-original-topic header named "orders.commands", not provider.events: not redrivable)',
    });
    expect((await ops('POST', '/dead-letters/redrive', { ids: [letter.id] })).body).toEqual({
      redriven: [],
      skipped: [{ id: letter.id, status: 'open', why: 'not a valid envelope' }],
    });

    // A row whose origin says another topic anyway: the redrive checks the contract catalog.
    const other = randomUUID();
    const event = providerEvent();
    await deadLetter('provider.events', other, JSON.stringify(event));
    const row = await openOf(other);
    await db.query(`UPDATE backoffice.dead_letters SET original_topic = 'orders.commands' WHERE id = $1`, [row.id]);
    expect((await ops('POST', '/dead-letters/redrive', { ids: [row.id] })).body).toEqual({
      redriven: [],
      skipped: [{ id: row.id, status: 'open', why: 'orders.commands is not a contract topic carrying provider.event' }],
    });
    for (const id of [planted.eventId, event.eventId]) {
      const sent = await db.query('SELECT count(*)::int AS n FROM backoffice.outbox WHERE event_id = $1', [id]);
      expect(sent.rows[0].n).toBe(0);
    }
  });

  it('when a dead letter carries a card number, then the backoffice keeps it masked and never redrives it', async () => {
    const key = randomUUID();
    await deadLetter('provider.events', key, JSON.stringify({ note: 'paid with 4111 1111 1111 1111' }));
    const letter = await openOf(key);
    const stored = await db.query('SELECT raw, envelope FROM backoffice.dead_letters WHERE id = $1', [letter.id]);
    expect(stored.rows[0]).toEqual({ raw: '{"note":"paid with 411111******1111"}', envelope: null });
    expect((await ops('GET', `/dead-letters/${letter.id}`)).body).toMatchObject({
      redrivable: false,
      error: 'handler failed: the database was down (card numbers masked by the backoffice: not redrivable)',
    });
  });
});
