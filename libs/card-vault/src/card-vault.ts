import { createHmac, randomUUID } from 'node:crypto';
import { Pool, PoolClient } from 'pg';
import { newPool } from '@payments/platform';
import { maskNumber } from '@payments/transfers-domain';
import type { CardVaultConfig } from './card-vault-config';
import { KeyRing } from './envelope';

/** What everything but the vault keeps of a card. */
export interface TokenizedCard {
  token: string;
  /** The first 6 digits (the issuer's BIN), as receipts show. */
  bin: string;
  last4: string;
  /** HMAC-SHA256 of the number under the fingerprint key (base64url): the same card, found without decrypting. */
  fingerprint: string;
  /** As answers show it: BIN, stars, last 4. */
  masked: string;
}

/** What the vault keeps of an erased card: its token and when it was erased, nothing of its number (decision 259). */
export interface ErasedCard {
  token: string;
  erasedAt: Date;
}

/** Raised for a token the vault does not know, or whose number was erased: never a made-up number. */
export class CardVaultError extends Error {
  override readonly name = 'CardVaultError';
  constructor(
    readonly reason: 'unknown_token' | 'erased' | 'not_a_card_number' | 'no_fingerprint_key',
    message: string,
  ) {
    super(message);
  }
}

export const CARD_VAULT_SCHEMA = 'card_vault';
const T = `${CARD_VAULT_SCHEMA}.cards`;

/** The tables and indexes the vault needs, by name (db-roles.sql creates the same ones in k8s). */
const CARD_VAULT_OBJECTS = ['cards', 'cards_live_fingerprint', 'cards_sealed_key'];

/** The constraint that an erased card keeps nothing of its number; a table without it is from before decision 259. */
export const ERASED_KEEPS_NOTHING = 'cards_erased_keeps_nothing';

/**
 * The vault's DDL, idempotent, from nothing or from any earlier table: a live card has its
 * fingerprint, BIN and last 4, an erased one none of them (decision 259); a table from before that
 * gets the columns nullable, its erased rows scrubbed, then the constraint. k8s/infra/db-roles.sql
 * runs the same statements as the schema's owner role; the component test of the roles boots the
 * vault on what that SQL made.
 */
export function cardVaultDdl(): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${T} (
        token text PRIMARY KEY,
        fingerprint text,
        bin text,
        last4 text,
        key_id text,
        ciphertext text,
        created_at timestamptz NOT NULL DEFAULT now(),
        rotated_at timestamptz,
        erased_at timestamptz,
        CONSTRAINT cards_erased_or_sealed CHECK ((erased_at IS NULL) = (ciphertext IS NOT NULL AND key_id IS NOT NULL)),
        CONSTRAINT ${ERASED_KEEPS_NOTHING} CHECK (CASE WHEN erased_at IS NULL THEN num_nulls(fingerprint, bin, last4) = 0
                                                   ELSE num_nonnulls(fingerprint, bin, last4) = 0 END)
      )`,
    `ALTER TABLE ${T} ALTER COLUMN fingerprint DROP NOT NULL, ALTER COLUMN bin DROP NOT NULL, ALTER COLUMN last4 DROP NOT NULL`,
    `UPDATE ${T} SET fingerprint = NULL, bin = NULL, last4 = NULL
      WHERE erased_at IS NOT NULL AND num_nonnulls(fingerprint, bin, last4) > 0`,
    `DO $$ BEGIN
       IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = '${T}'::regclass AND conname = '${ERASED_KEEPS_NOTHING}') THEN
         ALTER TABLE ${T} ADD CONSTRAINT ${ERASED_KEEPS_NOTHING} CHECK (CASE WHEN erased_at IS NULL THEN num_nulls(fingerprint, bin, last4) = 0
                                                                    ELSE num_nonnulls(fingerprint, bin, last4) = 0 END);
       END IF;
     END $$`,
    `CREATE UNIQUE INDEX IF NOT EXISTS cards_live_fingerprint ON ${T} (fingerprint) WHERE erased_at IS NULL`,
    `CREATE INDEX IF NOT EXISTS cards_sealed_key ON ${T} (key_id) WHERE ciphertext IS NOT NULL`,
  ];
}

/**
 * The one owner of card numbers (docs/decisions.md 110): the only code that encrypts, decrypts or
 * stores them, in its own schema through its own connection pool. Everything else holds tokens.
 * Only a vault given the fingerprint key tokenizes (decision 259): one that only detokenizes,
 * erases or rotates has none.
 */
export class CardVault {
  private readonly pool: Pool;
  private readonly keys: KeyRing;
  private readonly fingerprintKey: Buffer | undefined;

  constructor(
    databaseUrl: string,
    config: CardVaultConfig,
    opts: { poolSize?: number; warn?: (line: string) => void } = {},
  ) {
    const warn = opts.warn ?? ((line: string) => console.warn(`card vault: ${line}`));
    this.pool = newPool(
      { connectionString: databaseUrl, max: opts.poolSize ?? 4, application_name: CARD_VAULT_SCHEMA },
      warn,
    );
    this.keys = config.keys;
    this.fingerprintKey = config.fingerprintKey;
    if (config.fingerprintKeyWarning) warn(config.fingerprintKeyWarning);
  }

  get activeKeyId(): string {
    return this.keys.activeKeyId;
  }

  /**
   * Creates the schema, table and indexes if missing; every service that opens the vault calls it at
   * boot. Under the per-service roles (k8s/infra/db-roles.sql) the schema and its tables belong to
   * the role payments_card_vault and the services may only read and write rows: nothing is created
   * then (CREATE ... IF NOT EXISTS still needs CREATE on the schema), like ensureSchema in
   * @payments/platform. A missing object, or a table from before decision 259 (erased rows keeping
   * their fingerprint), that this role cannot create or change is an error saying what to run.
   */
  async migrate(): Promise<void> {
    await this.transaction(async (c) => {
      await c.query(`SELECT pg_advisory_xact_lock(hashtext('card_vault.migrate'))`);
      const { rows } = await c.query<{
        schema: boolean;
        create: boolean | null;
        owner: boolean | null;
        upgraded: boolean;
        missing: string[];
      }>(
        `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1) AS schema,
                CASE WHEN EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)
                     THEN has_schema_privilege($1, 'CREATE') END AS create,
                (SELECT pg_has_role(relowner, 'USAGE') FROM pg_class WHERE oid = to_regclass($1 || '.cards')) AS owner,
                EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = to_regclass($1 || '.cards') AND conname = $3) AS upgraded,
                ARRAY(SELECT x FROM unnest($2::text[]) x WHERE to_regclass($1 || '.' || x) IS NULL) AS missing`,
        [CARD_VAULT_SCHEMA, CARD_VAULT_OBJECTS, ERASED_KEEPS_NOTHING],
      );
      const state = rows[0];
      if (state.schema && state.missing.length === 0 && state.upgraded) return;
      const lacking = [
        ...state.missing.map((m) => `${CARD_VAULT_SCHEMA}.${m}`),
        ...(state.owner !== null && !state.upgraded ? [`${T}'s ${ERASED_KEEPS_NOTHING} (decision 259)`] : []),
      ];
      // Every statement needs CREATE on the schema, and once the table is there, its ownership.
      if (state.schema && (!state.create || state.owner === false))
        throw new Error(
          `card vault: ${lacking.join(', ')} missing and this role cannot make them: ` +
            `run k8s/infra/db-roles.sql (the Job payments-db-roles) again`,
        );
      if (!state.schema) await c.query(`CREATE SCHEMA IF NOT EXISTS ${CARD_VAULT_SCHEMA}`);
      for (const ddl of cardVaultDdl()) await c.query(ddl);
    });
  }

  /** Whether this vault was given the fingerprint key, so can tokenize. */
  get tokenizes(): boolean {
    return this.fingerprintKey !== undefined;
  }

  fingerprintOf(pan: string): string {
    if (!this.fingerprintKey)
      throw new CardVaultError(
        'no_fingerprint_key',
        'this service has no CARD_VAULT_FINGERPRINT_KEY: it cannot tokenize a card (decision 259)',
      );
    return createHmac('sha256', this.fingerprintKey).update(pan, 'utf8').digest('base64url');
  }

  /** The card's token: the one it already has while not erased, else a new one with the number sealed under the active key. */
  async tokenize(pan: string): Promise<TokenizedCard> {
    if (!/^[0-9]{12,19}$/.test(pan))
      throw new CardVaultError('not_a_card_number', 'not a card number of 12 to 19 digits');
    const fingerprint = this.fingerprintOf(pan);
    const card = { bin: pan.slice(0, 6), last4: pan.slice(-4), fingerprint, masked: maskNumber(pan) };
    for (let attempt = 0; attempt < 3; attempt++) {
      const token = `card_${randomUUID()}`;
      const inserted = await this.pool.query(
        `INSERT INTO ${T} (token, fingerprint, bin, last4, key_id, ciphertext) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (fingerprint) WHERE erased_at IS NULL DO NOTHING RETURNING token`,
        [token, fingerprint, card.bin, card.last4, this.keys.activeKeyId, this.keys.seal(pan, token)],
      );
      if (inserted.rowCount === 1) return { token, ...card };
      const live = await this.pool.query<{ token: string }>(
        `SELECT token FROM ${T} WHERE fingerprint = $1 AND erased_at IS NULL`,
        [fingerprint],
      );
      if (live.rows[0]) return { token: live.rows[0].token, ...card };
      // Erased between the two statements: the next attempt inserts a new token.
    }
    throw new Error('card vault: could not tokenize after 3 attempts (the card is being erased concurrently)');
  }

  /**
   * The card number, for a provider adapter just before it sends. Throws CardVaultError for an
   * unknown or erased token, EnvelopeError for a ciphertext that fails authentication.
   */
  async detokenize(token: string): Promise<string> {
    const { rows } = await this.pool.query<{ ciphertext: string | null }>(
      `SELECT ciphertext FROM ${T} WHERE token = $1`,
      [token],
    );
    if (rows.length === 0) throw new CardVaultError('unknown_token', `card token ${token} is not in the vault`);
    if (rows[0].ciphertext === null) throw new CardVaultError('erased', `the card of token ${token} was erased`);
    return this.keys.open(rows[0].ciphertext, token);
  }

  /**
   * The token's state, never its number: BIN and last 4 while it is live (null once erased) and
   * whether (and when) it was erased; null for an unknown token.
   */
  async describe(
    token: string,
  ): Promise<{ token: string; bin: string | null; last4: string | null; erasedAt: Date | null } | null> {
    const { rows } = await this.pool.query<{
      token: string;
      bin: string | null;
      last4: string | null;
      erased_at: Date | null;
    }>(`SELECT token, bin, last4, erased_at FROM ${T} WHERE token = $1`, [token]);
    const row = rows[0];
    return row ? { token: row.token, bin: row.bin, last4: row.last4, erasedAt: row.erased_at } : null;
  }

  /**
   * Removes the number for good, and with it all that would let it be recomputed: its ciphertext,
   * its fingerprint (an HMAC of the number: with the key, 10^5 Luhn-valid candidates for a BIN and
   * last 4 are hashed in seconds), its BIN and last 4 (decision 259). The token stays, marked
   * erased, so an erased token answers "erased" rather than "unknown". Idempotent: erased again,
   * the first time is answered.
   */
  async erase(token: string): Promise<ErasedCard | null> {
    const { rows } = await this.pool.query<{ token: string; erased_at: Date }>(
      `UPDATE ${T} SET ciphertext = NULL, key_id = NULL, fingerprint = NULL, bin = NULL, last4 = NULL,
              erased_at = COALESCE(erased_at, now())
       WHERE token = $1 RETURNING token, erased_at`,
      [token],
    );
    const row = rows[0];
    return row ? { token: row.token, erasedAt: row.erased_at } : null;
  }

  /**
   * Re-seals up to `limit` numbers under the active key; 0 when none is left under an older key.
   * Rows are taken with SKIP LOCKED, so several rotations and the services' own work run side by
   * side, and each committed batch is progress kept: stopped, a rotation resumes where it was.
   */
  async rotateBatch(limit: number): Promise<number> {
    return this.transaction(async (c) => {
      const { rows } = await c.query<{ token: string; ciphertext: string }>(
        `SELECT token, ciphertext FROM ${T} WHERE ciphertext IS NOT NULL AND key_id <> $1
         ORDER BY token LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [this.keys.activeKeyId, limit],
      );
      if (rows.length === 0) return 0;
      const tokens = rows.map((r) => r.token);
      const sealed = rows.map((r) => this.keys.seal(this.keys.open(r.ciphertext, r.token), r.token));
      await c.query(
        `UPDATE ${T} AS c SET ciphertext = u.ciphertext, key_id = $3, rotated_at = now()
         FROM unnest($1::text[], $2::text[]) AS u(token, ciphertext) WHERE c.token = u.token`,
        [tokens, sealed, this.keys.activeKeyId],
      );
      return rows.length;
    });
  }

  /** How many live numbers each key seals: rotation is over when only the active key is left. */
  async countByKey(): Promise<Record<string, number>> {
    const { rows } = await this.pool.query<{ key_id: string; n: string }>(
      `SELECT key_id, count(*) AS n FROM ${T} WHERE ciphertext IS NOT NULL GROUP BY key_id`,
    );
    return Object.fromEntries(rows.map((r) => [r.key_id, Number(r.n)]));
  }

  close(): Promise<void> {
    return this.pool.end();
  }

  private async transaction<R>(work: (c: PoolClient) => Promise<R>): Promise<R> {
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      const result = await work(c);
      await c.query('COMMIT');
      return result;
    } catch (err) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      c.release();
    }
  }
}

/** Re-seals every live number under the active key, batch by batch, until none is left under an older one. */
export async function rotateAll(
  vault: CardVault,
  opts: { batchSize: number; pauseMs?: number; onBatch?: (rotatedSoFar: number) => void },
): Promise<{ rotated: number }> {
  let rotated = 0;
  for (;;) {
    const n = await vault.rotateBatch(opts.batchSize);
    rotated += n;
    if (n === 0) {
      const left = Object.entries(await vault.countByKey())
        .filter(([key]) => key !== vault.activeKeyId)
        .reduce((sum, [, count]) => sum + count, 0);
      // Rows another rotation holds locked right now: wait for it rather than report done early.
      if (left === 0) return { rotated };
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    opts.onBatch?.(rotated);
    if (opts.pauseMs) await new Promise((r) => setTimeout(r, opts.pauseMs));
  }
}
