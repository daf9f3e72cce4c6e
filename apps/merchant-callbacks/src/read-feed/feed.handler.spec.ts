import { randomBytes } from 'node:crypto';
import { KeyRing, sealShopSecret } from '@payments/card-vault';
import { verifySignature } from '@payments/callback-signature';
import { envelope, FeedPage, MerchantCallbackCommandTypes, Reply } from '@payments/contracts';
import { FeedRepository, FeedRow } from './feed.repository';
import {
  ShopCallbackSettings,
  ShopCallbackSettingsRepository,
} from '../shop-settings/shop-callback-settings.repository';
import { MerchantCallbacksConfig } from '../tokens';
import { FEED_PAGE_MAX_BYTES, FeedHandler, toFeedPage } from './feed.handler';

const NOW = 1_795_000_000;
const SHOP = '6b05918b-57c4-4f02-855a-8c17e5f8bd41';
// As in production: the secret is stored sealed with CARD_VAULT_KEYS, bound to its shop.
const keys = new KeyRing([{ id: 'k1', key: randomBytes(32) }]);
const row = (position: number, body = `{"sequence":${position}}`): FeedRow => ({
  feed_position: String(position),
  event_id: `e-${position}`,
  type: 'order.status_changed',
  object_type: 'order',
  object_id: 'o-1',
  sequence: position,
  body,
});

function handlerFor(shop: ShopCallbackSettings, rows: FeedRow[]) {
  const deliveries = { feed: async () => ({ rows, hasMore: false }) } as unknown as FeedRepository;
  const shops = { forShop: async () => shop } as unknown as ShopCallbackSettingsRepository;
  const clock = { now: () => new Date(NOW * 1000) };
  const config = { secretKeys: keys } as MerchantCallbacksConfig;
  const handler = new FeedHandler(deliveries, shops, clock, config);
  return async (): Promise<FeedPage> => {
    const reply = (await handler.read(
      envelope({
        type: MerchantCallbackCommandTypes.feed,
        payload: { shopId: SHOP, afterPosition: 0, limit: 10 },
        occurredAt: new Date(NOW * 1000),
      }),
    )) as Reply<FeedPage>;
    if (!reply.ok) throw new Error(`not ok: ${JSON.stringify(reply)}`);
    return reply.result;
  };
}

const known = (secret: string | null, previous: string | null = null, expiresAt: Date | null = null) =>
  ({
    kind: 'known',
    callbackUrl: null,
    callbackSecret: secret && sealShopSecret(keys, SHOP, secret),
    previousCallbackSecret: previous && sealShopSecret(keys, SHOP, previous),
    previousCallbackSecretExpiresAt: expiresAt,
  }) as const;

describe('a page of the events feed', () => {
  it('when rows are read with the shop secret known, then each body is kept byte for byte and signed as a callback is, now', async () => {
    const body = '{"b": 1,  "a":"ü"}';
    const page = await handlerFor(known('whsec_current'), [row(9, body), row(10)])();
    expect(page.events.map((e) => [e.position, e.body])).toEqual([
      [9, body],
      [10, '{"sequence":10}'],
    ]);
    for (const e of page.events)
      expect(verifySignature(e.signature!, e.body, 'whsec_current', NOW)).toEqual({ kind: 'valid', timestamp: NOW });
  });

  it("when the shop's secret is being rotated, then each event verifies under the new and the replaced secret, as a callback does", async () => {
    const until = new Date((NOW + 3600) * 1000);
    const [e] = (await handlerFor(known('whsec_new', 'whsec_old', until), [row(1)])()).events;
    expect(e.signature!.match(/v1=/g)).toHaveLength(2);
    for (const secret of ['whsec_new', 'whsec_old'])
      expect(verifySignature(e.signature!, e.body, secret, NOW).kind).toBe('valid');
  });

  it("when the rotation's overlap has ended, then the replaced secret no longer verifies", async () => {
    const ended = new Date((NOW - 1) * 1000);
    const [e] = (await handlerFor(known('whsec_new', 'whsec_old', ended), [row(1)])()).events;
    expect(verifySignature(e.signature!, e.body, 'whsec_new', NOW).kind).toBe('valid');
    expect(verifySignature(e.signature!, e.body, 'whsec_old', NOW).kind).toBe('invalid');
  });

  it('when the shop secret is not known yet, then the events come unsigned', async () => {
    expect((await handlerFor({ kind: 'unknown' }, [row(1)])()).events[0].signature).toBeNull();
    expect((await handlerFor(known(null), [row(1)])()).events[0].signature).toBeNull();
  });

  it('when the rows would make a page larger than a Kafka message allows, then it stops early and says there is more', () => {
    // 500 bodies of 10 KB: about 5 MB in one reply, past Kafka's 1 MB message limit.
    const big = (n: number) => row(n, JSON.stringify({ sequence: n, pad: 'x'.repeat(10_000) }));
    const rows = Array.from({ length: 500 }, (_, i) => big(i + 1));
    const page = toFeedPage(rows, false, 0, ['whsec_current', 'whsec_old'], NOW);
    expect(Buffer.byteLength(JSON.stringify(page))).toBeLessThanOrEqual(FEED_PAGE_MAX_BYTES + 100);
    expect(page.events.length).toBeGreaterThan(40);
    expect(page.events.length).toBeLessThan(500);
    expect(page.hasMore).toBe(true);
    // The next page goes on after the last event given: nothing is skipped.
    expect(page.lastPosition).toBe(page.events.length);
    expect(page.events.map((e) => e.position)).toEqual(rows.slice(0, page.events.length).map((_, i) => i + 1));
  });

  it('when a single event is larger than a page may be, then it is still answered, alone', () => {
    const huge = row(7, JSON.stringify({ pad: 'x'.repeat(FEED_PAGE_MAX_BYTES) }));
    const page = toFeedPage([huge, row(8)], false, 6, ['whsec_current'], NOW);
    expect(page.events.map((e) => e.position)).toEqual([7]);
    expect(page).toMatchObject({ lastPosition: 7, hasMore: true });
  });

  it('when the rows fit, then the page is all of them and hasMore is what the read found', () => {
    expect(toFeedPage([row(1), row(2)], false, 0, [], NOW)).toMatchObject({ lastPosition: 2, hasMore: false });
  });

  it('when no row follows the position asked for, then the page is empty and keeps that position', () => {
    expect(toFeedPage([], false, 42, ['secret'], NOW)).toEqual({ events: [], lastPosition: 42, hasMore: false });
  });
});
