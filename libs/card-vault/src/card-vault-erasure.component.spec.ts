import { Client } from 'pg';
import { EnvReader } from '@payments/platform';
import { createTestDatabase, recoverCardNumber } from '@payments/testing';
import { CardVault, CardVaultError, ERASED_KEEPS_NOTHING } from './card-vault';
import { generateCardVaultKey, generatedCardVaultEnv, readCardVaultConfig } from './card-vault-config';

/** Two of Payme's published Uzcard test numbers (16 digits, BIN 860006 and 860049). */
const KEPT = '8600069195406311';
const ERASED = '8600495473316478';

/**
 * Erasure against a real PostgreSQL (decision 259): the review recovered an erased card by hashing
 * the ~10^5 Luhn-valid numbers with the row's BIN and last 4 under the fingerprint key and
 * comparing them with the row's fingerprint. The same attack is run here on a card that is kept
 * (it must succeed, or the test proves nothing) and on an erased one (it must fail).
 */
describe('erasing a card leaves nothing that recomputes its number', () => {
  let db: { url: string; drop(): Promise<void> };
  let sql: Client;
  const env = generatedCardVaultEnv();
  const fingerprintKey = Buffer.from(env.CARD_VAULT_FINGERPRINT_KEY, 'base64');
  const vaults: CardVault[] = [];
  const vaultWith = (use: 'required' | 'none' = 'required') => {
    const vault = new CardVault(db.url, readCardVaultConfig(new EnvReader(env), use), { poolSize: 2 });
    vaults.push(vault);
    return vault;
  };
  const rowOf = async (token: string): Promise<Record<string, unknown>> =>
    (await sql.query(`SELECT to_jsonb(c) AS row FROM card_vault.cards c WHERE token = $1`, [token])).rows[0].row;
  /** The attack, given the BIN and last 4 from wherever the attacker has them. */
  const attack = async (token: string, bin: string, last4: string) =>
    recoverCardNumber({ held: Object.values(await rowOf(token)), bin, last4, length: 16, fingerprintKey });

  beforeAll(async () => {
    db = await createTestDatabase();
    sql = new Client({ connectionString: db.url });
    await sql.connect();
    await vaultWith().migrate();
  });

  afterAll(async () => {
    for (const vault of vaults) await vault.close();
    await sql?.end();
    await db?.drop();
  });

  it('when a card is not erased, then the attack recovers its number from its row, BIN and last 4 and the fingerprint key', async () => {
    const { token } = await vaultWith().tokenize(KEPT);
    const row = await rowOf(token);
    expect(row).toMatchObject({ bin: '860006', last4: '6311' });
    const attempt = await attack(token, row.bin as string, row.last4 as string);
    process.stdout.write(
      `live card: ${attempt.candidates} candidates hashed in ${attempt.ms.toFixed(0)} ms, recovered ${attempt.recovered}\n`,
    );
    expect(attempt.recovered).toBe(KEPT);
  });

  it('when a card is erased, then its row keeps its token and erasure time only, and the attack recovers nothing', async () => {
    const vault = vaultWith();
    const { token } = await vault.tokenize(ERASED);
    const erased = await vault.erase(token);
    expect(erased).toEqual({ token, erasedAt: expect.any(Date) });
    const row = await rowOf(token);
    expect(row).toMatchObject({ token, fingerprint: null, bin: null, last4: null, key_id: null, ciphertext: null });
    expect(row.erased_at).not.toBeNull();
    // The strongest attacker: BIN and last 4 from the payout that keeps the masked number, every
    // value of the row to compare with, the fingerprint key.
    const attempt = await attack(token, ERASED.slice(0, 6), ERASED.slice(-4));
    process.stdout.write(
      `erased card: ${attempt.candidates} candidates hashed in ${attempt.ms.toFixed(0)} ms against ` +
        `${attempt.held} values of its row, recovered ${attempt.recovered ?? 'nothing'}\n`,
    );
    expect(attempt.candidates).toBe(100_000);
    expect(attempt.recovered).toBeUndefined();
    // An erased token still answers "erased", not "unknown"; erasing again answers the first erasure.
    await expect(vault.detokenize(token)).rejects.toMatchObject({ reason: 'erased' });
    expect(await vault.describe(token)).toEqual({ token, bin: null, last4: null, erasedAt: erased!.erasedAt });
    expect(await vault.erase(token)).toEqual(erased);
    // The same card given again is a new token, with a fingerprint; the erased row stays empty.
    const again = await vault.tokenize(ERASED);
    expect(again.token).not.toBe(token);
    expect((await rowOf(token)).fingerprint).toBeNull();
  });

  it('when an erased row is given a fingerprint, BIN or last 4, or a live row loses one, then PostgreSQL refuses', async () => {
    const vault = vaultWith();
    const erased = (await vault.tokenize('4111111111111111')).token;
    await vault.erase(erased);
    const live = (await vault.tokenize('5555555555554444')).token;
    for (const [token, set] of [
      [erased, `fingerprint = 'x'`],
      [erased, `bin = '411111'`],
      [erased, `last4 = '1111'`],
      [live, `last4 = NULL`],
    ])
      await expect(sql.query(`UPDATE card_vault.cards SET ${set} WHERE token = $1`, [token])).rejects.toThrow(
        new RegExp(ERASED_KEEPS_NOTHING),
      );
  });

  it('when a service holds no fingerprint key, then it opens, erases and rotates cards but cannot tokenize', async () => {
    const { token } = await vaultWith().tokenize('6011111111111117');
    const opener = vaultWith('none');
    expect(opener.tokenizes).toBe(false);
    await expect(opener.detokenize(token)).resolves.toBe('6011111111111117');
    await expect(opener.tokenize('6011111111111117')).rejects.toBeInstanceOf(CardVaultError);
    await expect(opener.tokenize('6011111111111117')).rejects.toMatchObject({ reason: 'no_fingerprint_key' });
    // It rotates too: with a second key, the card is sealed again under it and still opens.
    const rotator = new CardVault(
      db.url,
      readCardVaultConfig(
        new EnvReader({ CARD_VAULT_KEYS: `${env.CARD_VAULT_KEYS},${generateCardVaultKey('k2')}` }),
        'none',
      ),
      { poolSize: 1 },
    );
    vaults.push(rotator);
    expect(await rotator.rotateBatch(1000)).toBeGreaterThan(0);
    await expect(rotator.detokenize(token)).resolves.toBe('6011111111111117');
    expect(await opener.erase(token)).toMatchObject({ token });
  });
});

describe('a vault table from before decision 259, whose erased cards kept fingerprint, BIN and last 4', () => {
  let db: { url: string; drop(): Promise<void> };
  let sql: Client;
  const env = generatedCardVaultEnv();
  const fingerprintKey = Buffer.from(env.CARD_VAULT_FINGERPRINT_KEY, 'base64');

  beforeAll(async () => {
    db = await createTestDatabase();
    sql = new Client({ connectionString: db.url });
    await sql.connect();
  });

  afterAll(async () => {
    await sql?.end();
    await db?.drop();
  });

  it('when a service boots on it, then the migration scrubs the cards erased before and the attack on them fails', async () => {
    // The table as the vault made it before, and a card erased then: only its ciphertext removed.
    await sql.query(`CREATE SCHEMA card_vault`);
    await sql.query(`CREATE TABLE card_vault.cards (
        token text PRIMARY KEY, fingerprint text NOT NULL, bin text NOT NULL, last4 text NOT NULL,
        key_id text, ciphertext text, created_at timestamptz NOT NULL DEFAULT now(), rotated_at timestamptz,
        erased_at timestamptz,
        CONSTRAINT cards_erased_or_sealed CHECK ((erased_at IS NULL) = (ciphertext IS NOT NULL AND key_id IS NOT NULL)))`);
    await sql.query(
      `CREATE UNIQUE INDEX cards_live_fingerprint ON card_vault.cards (fingerprint) WHERE erased_at IS NULL`,
    );
    await sql.query(`CREATE INDEX cards_sealed_key ON card_vault.cards (key_id) WHERE ciphertext IS NOT NULL`);
    const vault = new CardVault(db.url, readCardVaultConfig(new EnvReader(env)), { poolSize: 1 });
    try {
      // A live card, tokenized before the upgrade (the statements are the same on the old table).
      const live = (await vault.tokenize(KEPT)).token;
      const old = 'card_00000000-0000-4000-8000-000000000001';
      await sql.query(
        `INSERT INTO card_vault.cards (token, fingerprint, bin, last4, erased_at) VALUES ($1, $2, $3, $4, now())`,
        [old, vault.fingerprintOf(ERASED), ERASED.slice(0, 6), ERASED.slice(-4)],
      );
      const before = (await sql.query(`SELECT * FROM card_vault.cards WHERE token = $1`, [old])).rows[0];
      expect(
        recoverCardNumber({
          held: Object.values(before),
          bin: before.bin,
          last4: before.last4,
          length: 16,
          fingerprintKey,
        }).recovered,
      ).toBe(ERASED);

      await vault.migrate();

      const after = (await sql.query(`SELECT * FROM card_vault.cards WHERE token = $1`, [old])).rows[0];
      expect(after).toMatchObject({ fingerprint: null, bin: null, last4: null });
      expect(
        recoverCardNumber({
          held: Object.values(after),
          bin: ERASED.slice(0, 6),
          last4: ERASED.slice(-4),
          length: 16,
          fingerprintKey,
        }).recovered,
      ).toBeUndefined();
      // Live cards are untouched and still open.
      await expect(vault.detokenize(live)).resolves.toBe(KEPT);
      const constraint = await sql.query(`SELECT 1 FROM pg_constraint WHERE conname = $1`, [ERASED_KEEPS_NOTHING]);
      expect(constraint.rowCount).toBe(1);
      await vault.migrate(); // again: nothing to do
    } finally {
      await vault.close();
    }
  });
});
