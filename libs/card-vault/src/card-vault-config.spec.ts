import { EnvReader } from '@payments/platform';
import { FingerprintKeyUse, generatedCardVaultEnv, readCardVaultConfig } from './card-vault-config';

function read(env: Record<string, string>, use: FingerprintKeyUse = 'required') {
  const reader = new EnvReader(env);
  const config = readCardVaultConfig(reader, use);
  reader.done('test');
  return config;
}

describe('readCardVaultConfig', () => {
  it('when no key is configured, then the service refuses to start naming both variables', () => {
    expect(() => read({})).toThrow(/CARD_VAULT_KEYS is required[\s\S]*CARD_VAULT_FINGERPRINT_KEY is required/);
  });

  it('when the keys are malformed, then the error names CARD_VAULT_KEYS', () => {
    expect(() => read({ ...generatedCardVaultEnv(), CARD_VAULT_KEYS: 'k1:c2hvcnQ=' })).toThrow(
      /CARD_VAULT_KEYS key "k1" must be 32 bytes/,
    );
  });

  it('when the fingerprint key is short, then the error names CARD_VAULT_FINGERPRINT_KEY', () => {
    expect(() => read({ ...generatedCardVaultEnv(), CARD_VAULT_FINGERPRINT_KEY: 'c2hvcnQ=' })).toThrow(
      /CARD_VAULT_FINGERPRINT_KEY must be at least 32 bytes/,
    );
  });

  it('when two keys are configured, then the last one is the active key', () => {
    expect(read(generatedCardVaultEnv(['2025', '2026'])).keys.activeKeyId).toBe('2026');
  });

  describe('the fingerprint key only where cards are tokenized (decision 259)', () => {
    const { CARD_VAULT_KEYS } = generatedCardVaultEnv();

    it('when a tokenizing service (gateway, checkout) has no fingerprint key, then it refuses to start naming it', () => {
      expect(() => read({ CARD_VAULT_KEYS })).toThrow(/CARD_VAULT_FINGERPRINT_KEY is required/);
    });

    it('when a service that only opens cards (orders, vault:rotate) has none, then it starts without one', () => {
      const config = read({ CARD_VAULT_KEYS }, 'none');
      expect(config.fingerprintKey).toBeUndefined();
      expect(config.fingerprintKeyWarning).toBeUndefined();
    });

    it('when such a service is given one anyway, then it does not read it and says to remove it', () => {
      const config = read({ ...generatedCardVaultEnv(), CARD_VAULT_FINGERPRINT_KEY: 'c2hvcnQ=' }, 'none');
      expect(config.fingerprintKey).toBeUndefined();
      expect(config.fingerprintKeyWarning).toMatch(/CARD_VAULT_FINGERPRINT_KEY is set .* remove it/);
    });

    it('when payouts or p2p start without one, then they start; given one (to move pre-vault numbers), they use it and say to remove it', () => {
      expect(read({ CARD_VAULT_KEYS }, 'upgrade-only').fingerprintKey).toBeUndefined();
      const env = generatedCardVaultEnv();
      const given = read(env, 'upgrade-only');
      expect(given.fingerprintKey).toEqual(Buffer.from(env.CARD_VAULT_FINGERPRINT_KEY, 'base64'));
      expect(given.fingerprintKeyWarning).toMatch(/only to move card numbers .* remove it/);
      expect(() => read({ CARD_VAULT_KEYS, CARD_VAULT_FINGERPRINT_KEY: 'c2hvcnQ=' }, 'upgrade-only')).toThrow(
        /CARD_VAULT_FINGERPRINT_KEY must be at least 32 bytes/,
      );
    });
  });
});
