import { generatedCardVaultEnv } from '@payments/card-vault';
import { EnvReader } from '@payments/platform';
import { loadCheckoutConfig } from './config';

const base = { DATABASE_URL: 'postgres://db/x', KAFKA_BROKERS: '127.0.0.1:9092', ...generatedCardVaultEnv() };

describe("checkout's configuration of Click and Payme (decision 342)", () => {
  it.each(['CLICK_SHOPS', 'PAYME_SHOPS'])(
    'when %s is still given, then checkout refuses to start, naming it and the operator route',
    (name) => {
      const env = new EnvReader({ ...base, [name]: '[]' });
      expect(() => loadCheckoutConfig(env)).toThrow(new RegExp(`${name} is no longer read: .*providers`));
    },
  );

  it("when only the providers' URLs are given, then checkout keeps them: which shop takes which comes with the order", () => {
    const env = new EnvReader({
      ...base,
      CLICK_PAY_URL: 'http://127.0.0.1:9/click',
      PAYME_CHECKOUT_URL: 'http://127.0.0.1:9/payme/checkout',
    });
    expect(loadCheckoutConfig(env).providerUrls).toEqual({
      clickPayUrl: 'http://127.0.0.1:9/click',
      paymeCheckoutUrl: 'http://127.0.0.1:9/payme/checkout',
    });
  });
});
