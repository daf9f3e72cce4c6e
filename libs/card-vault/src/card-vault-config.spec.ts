import { EnvReader } from '@payments/platform';
import { generatedCardVaultEnv, readCardVaultConfig } from './card-vault-config';

function read(env: Record<string, string>) {
  const reader = new EnvReader(env);
  const config = readCardVaultConfig(reader);
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
});
