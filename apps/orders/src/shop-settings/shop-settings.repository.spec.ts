import type { EntityManager } from 'typeorm';
import type { OrdersConfig } from '../config';
import { DEFAULT_SHOP_SETTINGS, ShopSettingsRepository } from './shop-settings.repository';

const SHOP = '00000000-0000-4000-8000-000000000001';
const OTHER = '00000000-0000-4000-8000-000000000002';

function snapshot(shopId: string, upperPercent: string) {
  return {
    shopId,
    version: 1,
    amountDeviation: { lowerPercent: '0', upperPercent },
    autoFinalizeNeedAction: false,
    processingTimeout: { defaultSeconds: 600, byPaymentSetting: {} },
    useCustomerDataAsPayer: false,
  };
}

/** The settings read path with the database faked: what is read, when, and what is kept. */
describe('shop settings in memory', () => {
  let stored: Map<string, ReturnType<typeof snapshot>>;
  let reads: string[][];
  let beforeAnswer: () => void;
  const m = {
    query: jest.fn(async (sql: string, params: unknown[]) => {
      if (!sql.startsWith('SELECT shop_id, settings')) throw new Error(`unexpected ${sql}`);
      const ids = params[0] as string[];
      reads.push(ids);
      const rows = ids.filter((id) => stored.has(id)).map((id) => ({ shop_id: id, settings: stored.get(id) }));
      beforeAnswer();
      return rows;
    }),
  } as unknown as EntityManager;
  let now: number;
  const repo = (settingsCacheMs: number) =>
    new ShopSettingsRepository({ schema: 'orders', settingsCacheMs } as unknown as OrdersConfig);

  beforeEach(() => {
    stored = new Map([[SHOP, snapshot(SHOP, '5')]]);
    reads = [];
    beforeAnswer = () => undefined;
    now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
  });
  afterEach(() => jest.restoreAllMocks());

  it('when a shop was read within the cache time, then it is not read again; after it, it is', async () => {
    const r = repo(1000);
    expect((await r.forShop(m, SHOP)).rules.amountDeviation.upperPercent).toBe('5');
    now += 999;
    stored.set(SHOP, snapshot(SHOP, '9'));
    expect((await r.forShop(m, SHOP)).rules.amountDeviation.upperPercent).toBe('5');
    now += 1;
    expect((await r.forShop(m, SHOP)).rules.amountDeviation.upperPercent).toBe('9');
    expect(reads).toEqual([[SHOP], [SHOP]]);
  });

  it('when several shops are asked for, then only those not in memory are read, in one query, and a shop without settings gets the defaults', async () => {
    const r = repo(1000);
    await r.forShop(m, SHOP);
    const both = await r.forShops(m, [SHOP, OTHER]);
    expect(reads).toEqual([[SHOP], [OTHER]]);
    expect(both.get(OTHER)).toBe(DEFAULT_SHOP_SETTINGS);
    expect(both.get(SHOP)!.rules.amountDeviation.upperPercent).toBe('5');
  });

  it('when this instance stores a newer snapshot, then the next read goes to the database', async () => {
    const r = repo(60_000);
    await r.forShop(m, SHOP);
    stored.set(SHOP, snapshot(SHOP, '7'));
    r.forget(SHOP);
    expect((await r.forShop(m, SHOP)).rules.amountDeviation.upperPercent).toBe('7');
  });

  it('when a snapshot is stored while a read is under way, then that read does not keep what it found', async () => {
    const r = repo(60_000);
    beforeAnswer = () => r.forget(SHOP); // the store lands between the read's query and its answer
    await r.forShop(m, SHOP);
    beforeAnswer = () => undefined;
    await r.forShop(m, SHOP);
    expect(reads).toEqual([[SHOP], [SHOP]]);
  });

  it('when the cache time is 0, then every read goes to the database', async () => {
    const r = repo(0);
    await r.forShop(m, SHOP);
    await r.forShop(m, SHOP);
    expect(reads).toEqual([[SHOP], [SHOP]]);
  });
});
