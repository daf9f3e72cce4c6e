import { ConfigError, EnvReader } from '@payments/platform';
import { loadMerchantCallbacksConfig } from './config';

const base = {
  DATABASE_URL: 'postgres://db/x',
  KAFKA_BROKERS: '127.0.0.1:9092',
  // The shops' sealed callback secrets are opened with the card vault's keys (decision 111).
  CARD_VAULT_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
};

describe('the events feed retention in the merchant-callbacks configuration', () => {
  it('when nothing is set, then deliveries are kept 35 days and purged every hour', () => {
    expect(loadMerchantCallbacksConfig(new EnvReader(base)).feed).toEqual({
      retentionDays: 35,
      purgeIntervalMs: 3_600_000,
    });
  });

  it.each([
    ['30', 30],
    ['90', 90],
  ])('when MERCHANT_CALLBACKS_FEED_RETENTION_DAYS is %s, then it is kept', (value, days) => {
    const env = new EnvReader({ ...base, MERCHANT_CALLBACKS_FEED_RETENTION_DAYS: value });
    expect(loadMerchantCallbacksConfig(env).feed.retentionDays).toBe(days);
  });

  it.each(['29', '0', 'a month'])(
    'when MERCHANT_CALLBACKS_FEED_RETENTION_DAYS is %p, then the service refuses to start, naming the variable',
    (value) => {
      const load = () =>
        loadMerchantCallbacksConfig(new EnvReader({ ...base, MERCHANT_CALLBACKS_FEED_RETENTION_DAYS: value }));
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(/MERCHANT_CALLBACKS_FEED_RETENTION_DAYS/);
    },
  );
});
