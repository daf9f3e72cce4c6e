import { generatedCardVaultEnv } from '@payments/card-vault';
import { ConfigError, EnvReader } from '@payments/platform';
import { loadCallbacksIngestConfig } from './config';

const base = { DATABASE_URL: 'postgres://db/x', KAFKA_BROKERS: '127.0.0.1:9092', ...generatedCardVaultEnv() };

describe('the provider callback secret of callbacks-ingest', () => {
  it('when SANDBOX_CALLBACK_SECRET is unset, then the app refuses to start, naming the variable', () => {
    expect(() => loadCallbacksIngestConfig(new EnvReader({ ...base }))).toThrow(ConfigError);
    expect(() => loadCallbacksIngestConfig(new EnvReader({ ...base }))).toThrow(/SANDBOX_CALLBACK_SECRET is required/);
  });

  it('when SANDBOX_CALLBACK_SECRET is the public sandbox-local-secret, then the app refuses to start', () => {
    const env = new EnvReader({ ...base, SANDBOX_CALLBACK_SECRET: 'sandbox-local-secret' });
    expect(() => loadCallbacksIngestConfig(env)).toThrow(/SANDBOX_CALLBACK_SECRET must not be the public/);
  });

  it('when SANDBOX_CALLBACK_SECRET is set, then callbacks are verified with it', () => {
    const env = new EnvReader({ ...base, SANDBOX_CALLBACK_SECRET: 'a-secret-of-this-deployment' });
    expect(loadCallbacksIngestConfig(env).providerSecrets).toEqual({
      sandbox: 'a-secret-of-this-deployment',
      'sandbox-b': 'a-secret-of-this-deployment',
    });
  });
});

describe("shops' Click and Payme accounts (decision 341)", () => {
  const ok = { ...base, SANDBOX_CALLBACK_SECRET: 'a-secret-of-this-deployment' };

  it.each(['CLICK_SHOPS', 'CLICK_SECRET_KEYS', 'PAYME_SHOPS', 'PAYME_KEYS'])(
    'when %s is still given, then the app refuses to start, naming it and the operator route',
    (name) => {
      const env = new EnvReader({ ...ok, [name]: '[]' });
      expect(() => loadCallbacksIngestConfig(env)).toThrow(new RegExp(`${name} is no longer read: .*providers`));
    },
  );

  it('when CARD_VAULT_KEYS is unset, then the app refuses to start: the accounts arrive sealed', () => {
    const { CARD_VAULT_KEYS: _keys, ...without } = ok;
    expect(() => loadCallbacksIngestConfig(new EnvReader(without))).toThrow(/CARD_VAULT_KEYS is required/);
  });
});
