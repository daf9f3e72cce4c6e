// Merchant callbacks when the merchant is not there: an endpoint down for a while, a restart of
// merchant-callbacks meanwhile, a hanging endpoint (per-shop slots), and a shop with no URL.
import { loadMerchantCallbacksConfig, startMerchantCallbacks } from '@payments/apps/merchant-callbacks';
import { eventually, http } from '@payments/testing';
import { TestStack } from '../support/stack';
import { merchantCallbacksStack } from '../support/merchant-callbacks-stack';

describe('merchant callbacks: every status change reaches the merchant, signed, in order, once', () => {
  const { started, gw, ops, aReceiver, aShopCalling, anOrder, paid, of, acceptedOf, untilAccepted } =
    merchantCallbacksStack();
  let stack: TestStack;
  beforeAll(() => {
    ({ stack } = started());
  });

  it('when the merchant endpoint answers 503 for a while, then once it is back every callback arrives, in order, once each', async () => {
    const receiver = await aReceiver();
    receiver.mode = 503;
    const shop = await aShopCalling(receiver.url);
    const order = await anOrder(shop);
    await eventually(
      async () => (of(receiver, order.id).length >= 3 ? true : undefined),
      20000,
      'three refused attempts',
    );
    await eventually(
      async () => {
        const r = await http('GET', `${gw()}/order/${order.id}`, { token: shop.apiKey });
        return r.body.status === 'in_progress' ? true : undefined;
      },
      15000,
      'order in progress',
    );
    await paid(order.id);
    await eventually(
      async () => {
        const r = await http('GET', `${gw()}/order/${order.id}`, { token: shop.apiKey });
        return r.body.status === 'completed' ? true : undefined;
      },
      15000,
      'order completed',
    );
    // While the first callback is refused, the later ones wait behind it: nothing overtakes.
    expect(new Set(of(receiver, order.id).map((c) => c.json.sequence))).toEqual(new Set([1]));

    receiver.mode = 200;
    const got = await untilAccepted(receiver, order.id, 3);
    expect(got.map((c) => c.json.sequence)).toEqual([1, 2, 3]);
    const byEvent = new Map<string, number>();
    for (const c of acceptedOf(receiver, order.id)) byEvent.set(c.json.eventId, (byEvent.get(c.json.eventId) ?? 0) + 1);
    expect([...byEvent.values()]).toEqual([1, 1, 1]);

    const list = await ops('GET', `/callbacks?objectId=${order.id}`);
    const first = await ops('GET', `/callbacks/${list.body.items.at(-1).id}`);
    const codes = first.body.attemptLog.map((a: any) => a.responseStatus);
    expect(codes.at(-1)).toBe(200);
    expect(codes.slice(0, -1).every((c: number) => c === 503)).toBe(true);
    expect(codes.length).toBeGreaterThanOrEqual(4);
    expect(first.body.attemptLog.map((a: any) => a.attempt)).toEqual(codes.map((_: unknown, i: number) => i + 1));
  });

  it('when merchant-callbacks restarts while a merchant is down, then nothing queued is lost', async () => {
    const receiver = await aReceiver();
    receiver.mode = 503;
    const shop = await aShopCalling(receiver.url);
    const order = await anOrder(shop);
    await eventually(async () => (of(receiver, order.id).length >= 2 ? true : undefined), 20000, 'refused attempts');
    await stack.merchantCallbacks!.close();
    receiver.mode = 200;
    stack.merchantCallbacks = await startMerchantCallbacks(
      loadMerchantCallbacksConfig(
        stack.env({ MERCHANT_CALLBACKS_CONCURRENCY: '4', MERCHANT_CALLBACKS_PER_SHOP_CONCURRENCY: '2' }),
      ),
      0,
    );
    const got = await untilAccepted(receiver, order.id, 2);
    expect(got.map((c) => c.json.sequence)).toEqual([1, 2]);
    expect(new Set(got.map((c) => c.json.eventId)).size).toBe(2);
  });

  it("when one merchant endpoint hangs, then another shop's callbacks still go out, and the hanging shop holds at most its own slots", async () => {
    const hanging = await aReceiver();
    hanging.mode = 'hang';
    const healthy = await aReceiver();
    const slow = await aShopCalling(hanging.url);
    const fast = await aShopCalling(healthy.url);
    const slowOrders = [await anOrder(slow), await anOrder(slow), await anOrder(slow)];
    await eventually(
      async () => (hanging.received.length >= 2 ? true : undefined),
      15000,
      'the hanging shop being called',
    );
    const fastOrders = [await anOrder(fast), await anOrder(fast)];
    for (const o of fastOrders) await untilAccepted(healthy, o.id, 2);
    // Everything of the healthy shop arrived while the hanging endpoint had not answered a single request.
    expect(hanging.received.every((c) => c.answered === undefined)).toBe(true);
    expect(hanging.maxOpen).toBeLessThanOrEqual(2);
    hanging.release(200);
    for (const o of slowOrders) await untilAccepted(hanging, o.id, 2, 30000);
  });

  it('when a shop has no callback URL, then its callbacks are recorded as skipped', async () => {
    const shop = await aShopCalling(undefined);
    const order = await anOrder(shop);
    const list = await eventually(
      async () => {
        const r = await ops('GET', `/callbacks?objectId=${order.id}&status=skipped`);
        return r.body.items.length >= 1 ? r.body.items : undefined;
      },
      15000,
      'skipped delivery',
    );
    expect(list[0]).toMatchObject({ status: 'skipped', attempts: 0, lastError: 'the shop has no callback URL' });
  });
});
