// The card vault's keys for local runs (docs/security.md, "Keys and rotation"): `npm start` keeps
// them in .run/card-vault.json (mode 0600) across runs, so the cards stored stay readable; the
// bench and the fault suite get fresh ones per run. Production configures its own; the services
// refuse to start without them.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** `<id>:<base64 of 32 random bytes>`. */
function newKey(id) {
  return `${id}:${randomBytes(32).toString('base64')}`;
}

/** A vault environment with one new key and a new fingerprint key. */
export function newCardVaultEnv() {
  return {
    CARD_VAULT_KEYS: newKey(`k${Date.now().toString(36)}`),
    CARD_VAULT_FINGERPRINT_KEY: randomBytes(32).toString('base64'),
  };
}

/**
 * The keys `npm start` and `npm run vault:rotate` use: the environment's when set, else the ones
 * kept in `<runDir>/card-vault.json`, generated on the first run.
 * @param {string} runDir
 * @returns {{ CARD_VAULT_KEYS: string, CARD_VAULT_FINGERPRINT_KEY: string }}
 */
export function localCardVaultEnv(runDir) {
  if (process.env.CARD_VAULT_KEYS && process.env.CARD_VAULT_FINGERPRINT_KEY)
    return {
      CARD_VAULT_KEYS: process.env.CARD_VAULT_KEYS,
      CARD_VAULT_FINGERPRINT_KEY: process.env.CARD_VAULT_FINGERPRINT_KEY,
    };
  const file = path.join(runDir, 'card-vault.json');
  if (!existsSync(file)) writeFileSync(file, JSON.stringify(newCardVaultEnv(), null, 2) + '\n', { mode: 0o600 });
  return JSON.parse(readFileSync(file, 'utf8'));
}

/**
 * Appends a new key to the local key list (it becomes the active one): the first step of a local
 * rotation; the running services pick it up when restarted.
 * @param {string} runDir
 * @returns {string} the new key's id
 */
export function addLocalCardVaultKey(runDir) {
  const file = path.join(runDir, 'card-vault.json');
  const env = localCardVaultEnv(runDir);
  const id = `k${Date.now().toString(36)}`;
  env.CARD_VAULT_KEYS = `${env.CARD_VAULT_KEYS},${newKey(id)}`;
  writeFileSync(file, JSON.stringify(env, null, 2) + '\n', { mode: 0o600 });
  return id;
}
