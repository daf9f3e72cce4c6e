import type { ProviderAccountView } from '@payments/merchant-admin';

/** Examples of the operators' routes of a shop's provider accounts (decision 341). */
export const setClickAccountExample = {
  settings: { serviceId: '40123', merchantId: '31987', secretKey: 'the-SECRET_KEY-of-the-Click-cabinet' },
  reason: 'The merchant signed its Click contract',
};

export const setPaymeAccountExample = {
  settings: { merchantId: '5e730e8e0b852a417aa49ceb', key: 'the-key-of-the-Payme-cashbox' },
  reason: 'The merchant opened a Payme cashbox',
};

export const deleteProviderAccountExample = { reason: 'The merchant ended its Click contract' };

export const clickAccountExample: ProviderAccountView = {
  shopId: '3f2c8a4e-1b7d-4e9a-8c6f-5d4b3a291e0f',
  provider: 'click',
  settings: { serviceId: '40123', merchantId: '31987' },
  secretSet: true,
  updatedAt: '2026-11-28T00:30:00.000Z',
};

export const paymeAccountExample: ProviderAccountView = {
  shopId: '3f2c8a4e-1b7d-4e9a-8c6f-5d4b3a291e0f',
  provider: 'payme',
  settings: { merchantId: '5e730e8e0b852a417aa49ceb' },
  secretSet: true,
  updatedAt: '2026-11-28T00:30:00.000Z',
};
