// Merchant callbacks of a paid order: each status change in sequence, signed over the raw body,
// the secret kept sealed, the operator's delivery log, replay and paging, and an order's own URL.
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { verifySignature } from '@payments/callback-signature';
import { statusOf } from '@payments/status-codes';
import { eventually, http } from '@payments/testing';
import { verifyCallback } from '../../examples/merchant-callback-verify/verify';
import { CallbackReceiver, ReceivedCallback } from '../support/callback-receiver';
import { opsUrlOf } from '../support/stack';
import { merchantCallbacksStack, Shop } from '../support/merchant-callbacks-stack';

describe('merchant callbacks: every status change reaches the merchant, signed, in order, once', () => {
  const { started, gw, ops, aReceiver, aShopCalling, anOrder, paid, of, acceptedOf, untilAccepted, validSignature } =
    merchantCallbacksStack();
  let db: Client;
  beforeAll(() => {
    ({ db } = started());
  });

  describe('an order that is paid', () => {
    let receiver: CallbackReceiver;
    let shop: Shop;
    let order: { id: string; order: { merchantOrderId: string } };
    let got: ReceivedCallback[];

    beforeAll(async () => {
      receiver = await aReceiver();
      shop = await aShopCalling(receiver.url);
      order = await anOrder(shop);
      await untilAccepted(receiver, order.id, 2); // registered, then in_progress once the sandbox took the attempt
      await paid(order.id);
      got = await untilAccepted(receiver, order.id, 3);
    });

    it('when the order is created and then completed, then the shop URL receives each status change in sequence', () => {
      expect(got.map((c) => [c.json.sequence, c.json.status, c.json.previousStatus])).toEqual([
        [1, 'registered', null],
        [2, 'in_progress', 'registered'],
        [3, 'completed', 'in_progress'],
      ]);
      expect(got[2].json).toMatchObject({
        type: 'order.status_changed',
        objectType: 'order',
        objectId: order.id,
        shopId: shop.shopId,
        merchantOrderId: order.order.merchantOrderId,
        cost: { amount: '100.99', currency: 'USD' },
        ...statusOf('0-01-00'),
      });
      expect(Date.parse(got[2].json.occurredAt)).not.toBeNaN();
    });

    it('when a callback arrives, then it is signed with the shop secret over the raw body (the merchant example verifies it) and names its eventId', () => {
      for (const c of got) {
        expect(c.headers['content-type']).toBe('application/json');
        expect(c.headers['x-event-id']).toBe(c.json.eventId);
        expect(validSignature(c, shop.callbackSecret)).toBe('valid');
        expect(verifyCallback(c.raw, c.headers['x-signature'] as string, shop.callbackSecret)).toEqual({
          valid: true,
          timestamp: expect.any(Number),
        });
        expect(validSignature(c, 'another-secret')).toBe('invalid');
        expect(
          verifySignature(
            c.headers['x-signature'] as string,
            c.raw + ' ',
            shop.callbackSecret,
            Math.floor(Date.now() / 1000),
          ).kind,
        ).toBe('invalid');
      }
      expect(new Set(got.map((c) => c.json.eventId)).size).toBe(3);
    });

    it('when the shop settings carry the callback secret, then merchant-callbacks keeps it, sealed, and orders does not', async () => {
      const mine = await db.query('SELECT callback_secret FROM merchant_callbacks.shops WHERE shop_id = $1', [
        shop.shopId,
      ]);
      expect(mine.rows[0].callback_secret).toMatch(/^v1:/);
      expect(mine.rows[0].callback_secret).not.toContain(shop.callbackSecret);
      const theirs = await eventually(
        async () => {
          const r = await db.query('SELECT settings FROM orders.shop_settings WHERE shop_id = $1', [shop.shopId]);
          return r.rows[0]?.settings;
        },
        15000,
        'settings in orders',
      );
      expect(theirs.callbackUrl).toBe(receiver.url);
      expect(JSON.stringify(theirs)).not.toContain(shop.callbackSecret);
    });

    it("when an operator lists the order's deliveries, then they are newest first, delivered, with each attempt's response code", async () => {
      const list = await ops('GET', `/callbacks?objectId=${order.id}`);
      expect(list.status).toBe(200);
      expect(list.body.items.map((d: any) => [d.sequence, d.status, d.lastResponseStatus])).toEqual([
        [3, 'delivered', 200],
        [2, 'delivered', 200],
        [1, 'delivered', 200],
      ]);
      const one = await ops('GET', `/callbacks/${list.body.items[2].id}`);
      expect(one.status).toBe(200);
      expect(one.body.body.eventId).toBe(got[0].json.eventId);
      expect(one.body.attemptLog).toEqual([
        expect.objectContaining({
          attempt: 1,
          responseStatus: 200,
          error: null,
          url: receiver.url,
          latencyMs: expect.any(Number),
        }),
      ]);
    });

    it('when an operator replays a delivery, then the merchant receives it again with the same eventId and a fresh signature', async () => {
      const list = await ops('GET', `/callbacks?objectId=${order.id}&limit=1`);
      const latest = list.body.items[0];
      const before = acceptedOf(receiver, order.id).length;
      const replay = await ops('POST', `/callbacks/${latest.id}/replay`);
      expect(replay.status).toBe(200);
      const again = (await untilAccepted(receiver, order.id, before + 1)).at(-1)!;
      expect(again.json.eventId).toBe(latest.eventId);
      expect(again.raw).toBe(got[2].raw);
      expect(validSignature(again, shop.callbackSecret)).toBe('valid');
      const detail = await eventually(
        async () => {
          const r = await ops('GET', `/callbacks/${latest.id}`);
          return r.body.attemptLog.length === 2 && r.body.status === 'delivered' ? r.body : undefined;
        },
        15000,
        'second attempt logged',
      );
      expect(detail.attempts).toBe(2);
    });

    it('when an operator pages through the log with limit and cursor, then every delivery shows up once', async () => {
      const first = await ops('GET', `/callbacks?shopId=${shop.shopId}&limit=2`);
      expect(first.body.items).toHaveLength(2);
      expect(first.body.nextCursor).toEqual(expect.any(String));
      const second = await ops('GET', `/callbacks?shopId=${shop.shopId}&limit=2&cursor=${first.body.nextCursor}`);
      expect(second.body.items.map((d: any) => d.sequence)).toEqual([1]);
      expect(second.body.nextCursor).toBeNull();
    });

    it('when the operator API is called with a merchant key or bad filters, then it refuses', async () => {
      expect((await http('GET', `${opsUrlOf(gw())}/ops/v1/callbacks`, { token: shop.apiKey })).status).toBe(401);
      const bad = await ops('GET', '/callbacks?status=lost&limit=0');
      expect(bad.status).toBe(400);
      expect(bad.body.errors.map((e: any) => e.path).sort()).toEqual(['limit', 'status']);
      expect((await ops('GET', `/callbacks/${randomUUID()}`)).status).toBe(404);
      const noTarget = await ops('POST', '/callbacks/replay', { status: 'failed' });
      expect(noTarget.status).toBe(400);
      expect(noTarget.body.errors[0].path).toBe('deliveryIds');
      // A replay of a shop's deliveries is audited on that shop (its id is in the body).
      const replayed = await ops('POST', '/callbacks/replay', { shopId: shop.shopId, status: 'failed' });
      expect(replayed.status).toBe(200);
      const audit = await ops('GET', `/audit?action=delivery.replay-many&objectId=${shop.shopId}`);
      expect(audit.body.items).toHaveLength(1);
    });
  });

  it('when an order names its own callback URL, then its callbacks go there and not to the shop URL', async () => {
    const shopReceiver = await aReceiver();
    const orderReceiver = await aReceiver();
    const shop = await aShopCalling(shopReceiver.url);
    const order = await anOrder(shop, { callbackUrl: orderReceiver.url });
    const got = await untilAccepted(orderReceiver, order.id, 2);
    expect(got.map((c) => c.json.sequence)).toEqual([1, 2]);
    expect(of(shopReceiver, order.id)).toHaveLength(0);
  });
});
