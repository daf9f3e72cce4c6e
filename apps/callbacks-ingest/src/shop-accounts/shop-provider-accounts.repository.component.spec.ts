import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { KeyRing, sealProviderSecret } from '@payments/card-vault';
import { openServiceDatabase } from '@payments/platform';
import { createTestDatabase } from '@payments/testing';
import type { CallbacksIngestConfig } from '../config';
import { CALLBACKS_INGEST_MIGRATIONS } from '../migrations';
import { ShopProviderAccountsRepository } from './shop-provider-accounts.repository';

const SCHEMA = 'callbacks_ingest';
const keys = new KeyRing([{ id: 'k1', key: randomBytes(32) }]);

/**
 * callbacks-ingest's copy of shops' Click and Payme accounts (decision 341): a call names the
 * Click service or Payme cashbox, and its account is the shop's that holds it now.
 */
describe("shops' provider accounts as callbacks-ingest looks them up", () => {
  let db: { url: string; drop(): Promise<void> };
  let ds: DataSource;
  let repo: ShopProviderAccountsRepository;

  beforeAll(async () => {
    db = await createTestDatabase();
    ds = await openServiceDatabase({
      url: db.url,
      schema: SCHEMA,
      entities: [],
      migrations: CALLBACKS_INGEST_MIGRATIONS,
    });
    repo = new ShopProviderAccountsRepository(ds, { schema: SCHEMA, secretKeys: keys } as CallbacksIngestConfig);
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  const clickAccount = (shopId: string, serviceId: string, key: string, updatedAt: string) => ({
    click: { serviceId, merchantId: '30001', secretKey: sealProviderSecret(keys, shopId, 'click', key), updatedAt },
  });

  it("when an account moved to another shop and the old shop's snapshot without it has not arrived yet, then a call finds the new shop", async () => {
    // An operator deleted service 71001 from shop A and set it on shop B (the gateway's unique index
    // allows only this order). Their snapshots travel on different partitions of shops.settings:
    // B's arrived, A's (without the account) is still behind, or was dead-lettered.
    const serviceId = String(71000 + Math.floor(Math.random() * 999));
    const a = randomUUID();
    const b = randomUUID();
    expect(
      await repo.upsert({
        shopId: a,
        version: 3,
        providerAccounts: clickAccount(a, serviceId, 'the-old-shop-key-01', '2026-11-28T00:10:00.000Z'),
      }),
    ).toBe(true);
    expect(
      await repo.upsert({
        shopId: b,
        version: 1,
        providerAccounts: clickAccount(b, serviceId, 'the-new-shop-key-02', '2026-11-28T00:20:00.000Z'),
      }),
    ).toBe(true);
    for (let i = 0; i < 3; i++)
      expect(await repo.find('click', serviceId)).toMatchObject({ shopId: b, secret: 'the-new-shop-key-02' });
    // Once A's snapshot arrives, only B has it anyway.
    await repo.upsert({ shopId: a, version: 4, providerAccounts: {} });
    expect(await repo.find('click', serviceId)).toMatchObject({ shopId: b });
  });

  it('when no shop has the service, then nothing is found', async () => {
    expect(await repo.find('click', '99999999')).toBeUndefined();
  });
});
