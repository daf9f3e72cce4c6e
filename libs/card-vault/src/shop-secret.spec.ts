import { randomBytes } from 'node:crypto';
import { EnvelopeError, KeyRing } from './envelope';
import {
  isSealed,
  needsReseal,
  openProviderSecret,
  openShopSecret,
  resealShopSecret,
  sealProviderSecret,
  sealShopSecret,
} from './shop-secret';

const k1 = { id: 'k1', key: randomBytes(32) };
const k2 = { id: 'k2', key: randomBytes(32) };
const SHOP = '6b05918b-57c4-4f02-855a-8c17e5f8bd41';

describe('shop callback secrets at rest', () => {
  it('when a secret is sealed, then it opens for its shop only', () => {
    const keys = new KeyRing([k1]);
    const sealed = sealShopSecret(keys, SHOP, 'whsec_abc');
    expect(isSealed(sealed)).toBe(true);
    expect(sealed).not.toContain('whsec_abc');
    expect(openShopSecret(keys, SHOP, sealed)).toBe('whsec_abc');
    expect(() => openShopSecret(keys, 'another-shop', sealed)).toThrow(EnvelopeError);
  });

  it('when a value from before sealing is read, then it is used as it is and needs sealing', () => {
    const keys = new KeyRing([k1]);
    expect(openShopSecret(keys, SHOP, 'whsec_old')).toBe('whsec_old');
    expect(needsReseal(keys, 'whsec_old')).toBe(true);
  });

  it('when a newer key is added, then a secret sealed under the older one needs resealing and opens after it', () => {
    const old = sealShopSecret(new KeyRing([k1]), SHOP, 'whsec_abc');
    const keys = new KeyRing([k1, k2]);
    expect(needsReseal(keys, old)).toBe(true);
    const resealed = resealShopSecret(keys, SHOP, old);
    expect(needsReseal(keys, resealed)).toBe(false);
    expect(openShopSecret(new KeyRing([k2]), SHOP, resealed)).toBe('whsec_abc');
  });
});

describe("shops' provider secrets at rest (decision 341)", () => {
  it('when a provider secret is sealed, then it opens for its shop and provider only', () => {
    const keys = new KeyRing([k1]);
    const sealed = sealProviderSecret(keys, SHOP, 'click', 'click-secret-key');
    expect(sealed).not.toContain('click-secret-key');
    expect(openProviderSecret(keys, SHOP, 'click', sealed)).toBe('click-secret-key');
    expect(() => openProviderSecret(keys, SHOP, 'payme', sealed)).toThrow(EnvelopeError);
    expect(() => openProviderSecret(keys, 'another-shop', 'click', sealed)).toThrow(EnvelopeError);
    expect(() => openShopSecret(keys, SHOP, sealed)).toThrow(EnvelopeError);
  });
});
