import { Client } from 'pg';
import { FeedPurgeService } from '@payments/apps/merchant-callbacks';
import { verifySignature } from '@payments/callback-signature';
import { http } from '@payments/testing';
import { CallbackReceiver, ReceivedCallback } from '../support/callback-receiver';
import { anOrderRequest } from '../support/merchant';
import * as provider from '../support/provider';
import { opsUrlOf, TEST_OPS_TOKEN, TestStack } from '../support/stack';
import { aP2pRequest, aPayoutRequest, withPayoutMethods } from '../support/transfers';
import { untilStatus } from '../support/wait';

interface Shop {
  shopId: string;
  apiKey: string;
  callbackSecret: string;
}

interface FeedEvent {
  cursor: string;
  eventId: string;
  type: string;
  objectType: string;
  objectId: string;
  sequence: number;
  body: string;
  signature: string | null;
}

type Kind = 'order' | 'payout' | 'p2p';
const PATH: Record<Kind, string> = { order: '/order', payout: '/payouts', p2p: '/p2p' };
const SANDBOX_KIND: Record<Kind, string> = { order: 'payment', payout: 'payout', p2p: 'p2p' };

/** What a merchant keeps of each object: the callback body with the highest sequence it has seen. */
function fold(bodies: string[]): Map<string, string> {
  const state = new Map<string, string>();
  for (const raw of bodies) {
    const body = JSON.parse(raw) as { objectId: string; sequence: number };
    const known = state.get(body.objectId);
    if (!known || (JSON.parse(known) as { sequence: number }).sequence < body.sequence) state.set(body.objectId, raw);
  }
  return state;
}

/**
 * The events feed and the lookups by the merchant's own id, through the running services (gateway,
 * orders, payouts, p2p, the sandbox provider, merchant-callbacks) on the real broker and database,
 * with a real HTTP receiver as the merchant's callback endpoint. Amounts end in .99: the sandbox
 * accepts such attempts and never calls back, so the tests complete them through its simulator.
 */
describe('events feed: every status change of a shop, in order, as its callback carried it', () => {
  let stack: TestStack;
  let db: Client;
  const receivers: CallbackReceiver[] = [];

  beforeAll(async () => {
    stack = await TestStack.start({
      extraEnv: {
        ORDERS_SWEEP_INTERVAL_MS: '0',
        MERCHANT_CALLBACKS_BACKOFF_BASE_MS: '100',
        MERCHANT_CALLBACKS_BACKOFF_CAP_MS: '500',
      },
    });
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    for (const r of receivers) await r.stop();
    await db?.end();
    await stack?.stop();
  });

  const gw = () => stack.gateway!.url;
  const ops = (method: string, path: string, body?: unknown) =>
    http(method, `${opsUrlOf(gw())}/ops/v1${path}`, { token: TEST_OPS_TOKEN, body });
  const get = (shop: Shop, path: string) => http('GET', `${gw()}${path}`, { token: shop.apiKey });

  async function aReceiver(): Promise<CallbackReceiver> {
    const r = await CallbackReceiver.start();
    receivers.push(r);
    return r;
  }

  /** A shop calling back to `callbackUrl`, with payout methods, known to merchant-callbacks. */
  async function aShop(callbackUrl: string): Promise<Shop> {
    const company = await ops('POST', '/companies', { name: 'Feed Co' });
    const res = await ops('POST', `/companies/${company.body.id}/shops`, { name: 'Feed Shop', callbackUrl });
    expect(res.status).toBe(201);
    await withPayoutMethods(gw(), res.body.id);
    await untilTrue(async () => {
      const r = await db.query('SELECT 1 FROM merchant_callbacks.shops WHERE shop_id = $1', [res.body.id]);
      return r.rowCount === 1;
    }, 'shop settings in merchant-callbacks');
    return { shopId: res.body.id, apiKey: res.body.apiKey, callbackSecret: res.body.callbackSecret };
  }

  async function untilTrue(check: () => Promise<boolean>, what: string, timeoutMs = 30000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Creates an order, payout or P2P transaction and has the provider complete it: three status changes. */
  async function completed(shop: Shop, kind: Kind): Promise<{ id: string; merchantId: string }> {
    const merchantId = `${kind}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
    const cost = { amount: kind === 'order' ? '100.99' : kind === 'payout' ? '20.99' : '30.99', currency: 'USD' };
    const body =
      kind === 'order'
        ? anOrderRequest({ amount: cost.amount, merchantOrderId: merchantId })
        : kind === 'payout'
          ? aPayoutRequest({ amount: cost.amount, merchantPayoutId: merchantId })
          : aP2pRequest({ amount: cost.amount, merchantP2pId: merchantId });
    const res = await http('POST', `${gw()}${PATH[kind]}`, { token: shop.apiKey, body });
    expect(res.status).toBe(201);
    const id: string = res.body.id;
    const read = async () => (await get(shop, `${PATH[kind]}/${id}`)).body;
    await untilStatus(read, 'in_progress', `${kind} ${id} in_progress`);
    const dispatch = await provider.dispatchOf(db, kind, id);
    const sim = await http('POST', `${stack.sandbox!.url}/simulate/callback`, {
      body: {
        kind: SANDBOX_KIND[kind],
        reference: id,
        ...(kind === 'order' ? {} : { paymentId: dispatch.dispatch_id }),
        status: 'success',
        amount: cost.amount,
        currency: cost.currency,
      },
    });
    expect(sim.body).toMatchObject({ delivered: true });
    await untilStatus(read, 'completed', `${kind} ${id} completed`);
    return { id, merchantId };
  }

  /** Reads the whole feed from `after`, `limit` at a time; answers the events and the cursor to keep. */
  async function readFeed(
    shop: Shop,
    opts: { after?: string; limit?: number; query?: string } = {},
  ): Promise<{ events: FeedEvent[]; cursor: string; pages: number }> {
    const events: FeedEvent[] = [];
    let after = opts.after;
    let pages = 0;
    for (;;) {
      const params = [
        ...(after ? [`after=${after}`] : []),
        ...(opts.limit ? [`limit=${opts.limit}`] : []),
        ...(opts.query ? [opts.query] : []),
      ];
      const res = await get(shop, `/events${params.length ? `?${params.join('&')}` : ''}`);
      expect(res.status).toBe(200);
      pages += 1;
      events.push(...(res.body.events as FeedEvent[]));
      after = res.body.nextCursor as string;
      if (!res.body.hasMore) return { events, cursor: after, pages };
    }
  }

  const nowSeconds = () => Math.floor(Date.now() / 1000);
  /** A status change reaches merchant-callbacks a moment after the object's own read shows it. */
  const untilRecorded = (shop: Shop, n: number) =>
    untilTrue(async () => {
      const r = await db.query('SELECT count(*)::int AS n FROM merchant_callbacks.deliveries WHERE shop_id = $1', [
        shop.shopId,
      ]);
      return r.rows[0].n >= n;
    }, `${n} status changes recorded`);
  const accepted = (r: CallbackReceiver, ids: string[]) => r.accepted().filter((c) => ids.includes(c.json?.objectId));
  async function untilAccepted(r: CallbackReceiver, ids: string[], n: number): Promise<ReceivedCallback[]> {
    await untilTrue(async () => accepted(r, ids).length >= n, `${n} callbacks accepted`);
    return accepted(r, ids);
  }

  describe("a shop's order, payout and P2P transaction, each completed", () => {
    let shop: Shop;
    let other: Shop;
    let receiver: CallbackReceiver;
    let objects: Record<Kind, { id: string; merchantId: string }>;
    let callbacks: ReceivedCallback[];
    let feed: FeedEvent[];

    beforeAll(async () => {
      receiver = await aReceiver();
      shop = await aShop(receiver.url);
      other = await aShop((await aReceiver()).url);
      objects = {
        order: await completed(shop, 'order'),
        payout: await completed(shop, 'payout'),
        p2p: await completed(shop, 'p2p'),
      };
      await completed(other, 'order');
      const ids = Object.values(objects).map((o) => o.id);
      callbacks = await untilAccepted(receiver, ids, 9);
      // The feed is written when a change is recorded, before its callback goes out: read it once all are in.
      feed = (await readFeed(shop)).events;
    });

    it('when the feed is read, then it holds every status change of the three objects, each object in sequence order', () => {
      expect(feed).toHaveLength(9);
      for (const kind of ['order', 'payout', 'p2p'] as const) {
        const mine = feed.filter((e) => e.objectId === objects[kind].id);
        expect(mine.map((e) => [e.objectType, e.type, e.sequence])).toEqual([
          [kind, `${kind}.status_changed`, 1],
          [kind, `${kind}.status_changed`, 2],
          [kind, `${kind}.status_changed`, 3],
        ]);
        expect(mine.map((e) => JSON.parse(e.body).status)).toEqual(['registered', 'in_progress', 'completed']);
      }
      expect(new Set(feed.map((e) => e.cursor)).size).toBe(9);
    });

    it('when an event is compared with its callback, then the body is the same bytes and the signature verifies the same way', () => {
      for (const e of feed) {
        const callback = callbacks.find((c) => c.headers['x-event-id'] === e.eventId);
        expect(callback).toBeDefined();
        expect(e.body).toBe(callback!.raw);
        expect(verifySignature(e.signature ?? undefined, e.body, shop.callbackSecret, nowSeconds())).toEqual({
          kind: 'valid',
          timestamp: expect.any(Number),
        });
        expect(verifySignature(e.signature ?? undefined, e.body, other.callbackSecret, nowSeconds()).kind).toBe(
          'invalid',
        );
      }
    });

    it('when the feed is paged two at a time, then every event comes once, in the same order, with no gap', async () => {
      const paged = await readFeed(shop, { limit: 2 });
      expect(paged.pages).toBe(5);
      expect(paged.events.map((e) => e.eventId)).toEqual(feed.map((e) => e.eventId));
    });

    it("when the feed is read from an event's own cursor, then it continues right after that event", async () => {
      const rest = await readFeed(shop, { after: feed[3].cursor });
      expect(rest.events.map((e) => e.eventId)).toEqual(feed.slice(4).map((e) => e.eventId));
    });

    it('when the feed is read past its end, then the page is empty and the cursor stays where it was', async () => {
      const end = await readFeed(shop);
      const again = await get(shop, `/events?after=${end.cursor}`);
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ events: [], nextCursor: end.cursor, hasMore: false });
    });

    it.each(['payout', 'p2p', 'order'] as const)(
      'when the feed is filtered by objectType=%s, then only those status changes come',
      async (kind) => {
        const only = await readFeed(shop, { query: `objectType=${kind}` });
        expect(only.events.map((e) => e.eventId)).toEqual(
          feed.filter((e) => e.objectType === kind).map((e) => e.eventId),
        );
      },
    );

    it("when the feed is filtered by an object's id, then only its status changes come, and paging keeps to the filter", async () => {
      const only = await readFeed(shop, { query: `objectId=${objects.payout.id}`, limit: 1 });
      expect(only.pages).toBe(3);
      expect(only.events.map((e) => [e.objectId, e.sequence])).toEqual([
        [objects.payout.id, 1],
        [objects.payout.id, 2],
        [objects.payout.id, 3],
      ]);
    });

    it("when another shop reads its feed, or filters by this shop's object, then none of this shop's events appear", async () => {
      const theirs = await readFeed(other);
      expect(theirs.events).toHaveLength(3);
      expect(theirs.events.every((e) => JSON.parse(e.body).shopId === other.shopId)).toBe(true);
      const probing = await readFeed(other, { query: `objectId=${objects.order.id}` });
      expect(probing.events).toEqual([]);
      // A cursor of this shop's feed read with the other shop's key names only the other shop's events.
      const crossed = await readFeed(other, { after: feed[0].cursor });
      expect(crossed.events.every((e) => JSON.parse(e.body).shopId === other.shopId)).toBe(true);
    });

    it.each([
      ['after', 'after=not-a-cursor'],
      ['after', `after=${Buffer.from('v1.-3').toString('base64url')}`],
      ['after', 'after=42'],
      ['limit', 'limit=0'],
      ['limit', 'limit=501'],
      ['limit', 'limit=ten'],
      ['objectType', 'objectType=refund'],
      ['objectId', 'objectId=123'],
    ])('when the query is bad (%s: %s), then the answer is a 400 problem naming the field', async (field, query) => {
      const res = await get(shop, `/events?${query}`);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body.type).toBe('/problems/validation-error');
      expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: field })]));
    });

    it.each([
      ['order', '/order?merchantOrderId=', '/api/v1/order?merchantOrderId='],
      ['payout', '/payouts?merchantPayoutId=', '/api/v1/payouts?merchantPayoutId='],
      ['p2p', '/p2p?merchantP2pId=', '/api/v1/p2p?merchantP2pId='],
    ] as const)(
      "when a %s is looked up by the merchant's own id, then the answer is the one of the read by id",
      async (kind, lookup, versioned) => {
        const byId = await get(shop, `${PATH[kind]}/${objects[kind].id}`);
        const byMerchantId = await get(shop, `${lookup}${encodeURIComponent(objects[kind].merchantId)}`);
        expect(byMerchantId.status).toBe(200);
        expect(byMerchantId.body).toEqual(byId.body);
        expect((await get(shop, `${versioned}${encodeURIComponent(objects[kind].merchantId)}`)).body).toEqual(
          byId.body,
        );
      },
    );

    it.each([
      ['order', '/order', 'merchantOrderId'],
      ['payout', '/payouts', 'merchantPayoutId'],
      ['p2p', '/p2p', 'merchantP2pId'],
    ] as const)(
      "when a %s is looked up by another shop's or an unknown merchant id, then 404; without the id, 400 naming it",
      async (kind, path, param) => {
        const theirs = await get(other, `${path}?${param}=${encodeURIComponent(objects[kind].merchantId)}`);
        expect(theirs.status).toBe(404);
        expect(theirs.headers.get('content-type')).toContain('application/problem+json');
        expect((await get(shop, `${path}?${param}=never-used-${Date.now()}`)).status).toBe(404);
        for (const query of ['', `?${param}=`, `?${param}=${'x'.repeat(129)}`, `?${param}=a%00b`]) {
          const bad = await get(shop, `${path}${query}`);
          expect(bad.status).toBe(400);
          expect(bad.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: param })]));
        }
      },
    );
  });

  describe('a merchant whose callback endpoint was down', () => {
    it('when it reads the feed from its last cursor, then it ends with the state and bodies the callbacks give once delivered', async () => {
      const receiver = await aReceiver();
      const shop = await aShop(receiver.url);
      const before = await completed(shop, 'order');
      await untilAccepted(receiver, [before.id], 3);
      // The merchant's bookkeeping so far: what it processed, and the cursor it stored.
      const seen = await readFeed(shop);
      expect(seen.events).toHaveLength(3);
      const merchantState = fold(seen.events.map((e) => e.body));

      // Its endpoint goes down; meanwhile an order and a payout complete and a new order is created.
      receiver.mode = 503;
      const missed = [await completed(shop, 'order'), await completed(shop, 'payout')];
      const created = await http('POST', `${gw()}/order`, {
        token: shop.apiKey,
        body: anOrderRequest({ amount: '100.99' }),
      });
      const pendingOrder: string = created.body.id;
      await untilStatus(async () => (await get(shop, `/order/${pendingOrder}`)).body, 'in_progress', 'in_progress');
      const missedIds = [...missed.map((m) => m.id), pendingOrder];
      await untilTrue(
        async () => receiver.received.some((c) => missedIds.includes(c.json?.objectId)),
        'a refused callback',
      );
      expect(accepted(receiver, missedIds)).toEqual([]);
      await untilRecorded(shop, 3 + 8);

      // It reads the feed from its stored cursor, checking each signature as it checks callbacks.
      const caughtUp = await readFeed(shop, { after: seen.cursor, limit: 3 });
      // Exactly what it missed: each object's changes in sequence order, nothing it had already processed.
      const missedChanges = (id: string) => caughtUp.events.filter((e) => e.objectId === id).map((e) => e.sequence);
      expect(caughtUp.events).toHaveLength(8);
      expect([missedChanges(missed[0].id), missedChanges(missed[1].id), missedChanges(pendingOrder)]).toEqual([
        [1, 2, 3],
        [1, 2, 3],
        [1, 2],
      ]);
      for (const e of caughtUp.events) {
        expect(verifySignature(e.signature ?? undefined, e.body, shop.callbackSecret, nowSeconds()).kind).toBe('valid');
        const body = JSON.parse(e.body);
        if (!merchantState.has(body.objectId) || JSON.parse(merchantState.get(body.objectId)!).sequence < body.sequence)
          merchantState.set(body.objectId, e.body);
      }

      // The endpoint comes back; the retries deliver what it missed. Both roads end in the same place.
      receiver.mode = 200;
      const delivered = await untilAccepted(receiver, [before.id, ...missedIds], 3 + caughtUp.events.length);
      const byCallbacks = fold(delivered.map((c) => c.raw));
      expect([...merchantState.entries()].sort()).toEqual([...byCallbacks.entries()].sort());
      expect(new Set(caughtUp.events.map((e) => e.body))).toEqual(
        new Set(accepted(receiver, missedIds).map((c) => c.raw)),
      );
      for (const [objectId, raw] of merchantState) {
        const kind = JSON.parse(raw).objectType as Kind;
        const view = await get(shop, `${PATH[kind]}/${objectId}`);
        expect(JSON.parse(raw).status).toBe(view.body.status);
      }
      // Nothing new since: the stored cursor now reads an empty page.
      expect((await readFeed(shop, { after: caughtUp.cursor })).events).toEqual([]);
    });
  });

  describe('retention', () => {
    it('when the purge runs, then deliveries older than 35 days go with their attempts, younger ones stay, and positions go on', async () => {
      const receiver = await aReceiver();
      const shop = await aShop(receiver.url);
      const order = await completed(shop, 'order');
      await untilAccepted(receiver, [order.id], 3);
      const feed = (await readFeed(shop)).events;
      const day = 86_400_000;
      const now = new Date();
      // Age the first change past the retention and the second just inside it.
      for (const [event, age] of [
        [feed[0], 36 * day],
        [feed[1], 34 * day],
      ] as const) {
        await db.query('UPDATE merchant_callbacks.deliveries SET created_at = $2 WHERE event_id = $1', [
          event.eventId,
          new Date(now.getTime() - age),
        ]);
      }

      const purged = await stack.merchantCallbacks!.app.get(FeedPurgeService).purge(now);

      expect(purged).toBe(1);
      const kept = await readFeed(shop);
      expect(kept.events.map((e) => e.eventId)).toEqual([feed[1].eventId, feed[2].eventId]);
      const attempts = await db.query(
        'SELECT count(*)::int AS n FROM merchant_callbacks.delivery_attempts a JOIN merchant_callbacks.deliveries d ON d.id = a.delivery_id WHERE d.shop_id = $1',
        [shop.shopId],
      );
      expect(attempts.rows[0].n).toBe(2);
      const orphans = await db.query(
        'SELECT count(*)::int AS n FROM merchant_callbacks.delivery_attempts a WHERE NOT EXISTS (SELECT 1 FROM merchant_callbacks.deliveries d WHERE d.id = a.delivery_id)',
      );
      expect(orphans.rows[0].n).toBe(0);
      // A cursor from before the purge still reads on; the next change takes a position after every earlier one.
      expect((await readFeed(shop, { after: feed[0].cursor })).events).toHaveLength(2);
      const next = await completed(shop, 'payout');
      await untilAccepted(receiver, [next.id], 3);
      const after = await readFeed(shop, { after: kept.cursor });
      expect(after.events.map((e) => [e.objectId, e.sequence])).toEqual([
        [next.id, 1],
        [next.id, 2],
        [next.id, 3],
      ]);
    });
  });
});
