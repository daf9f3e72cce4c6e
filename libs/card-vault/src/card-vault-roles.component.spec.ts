import { EnvReader } from '@payments/platform';
import { asRole, createTestDatabase, DB_ROLES_SQL, ensureDbRoles, runSql } from '@payments/testing';
import { CardVault } from './card-vault';
import { generatedCardVaultEnv, readCardVaultConfig } from './card-vault-config';

/** The card vault under the per-service roles of k8s/infra/db-roles.sql, against a real PostgreSQL. */
describe('card vault under the per-service database roles', () => {
  let db: { url: string; drop(): Promise<void> };
  const config = readCardVaultConfig(new EnvReader(generatedCardVaultEnv()));
  const vaults: CardVault[] = [];
  const vaultAs = (role: string) => {
    const vault = new CardVault(asRole(db.url, role), config, { poolSize: 1 });
    vaults.push(vault);
    return vault;
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    await ensureDbRoles(db.url);
    await runSql(db.url, DB_ROLES_SQL);
    await runSql(db.url, DB_ROLES_SQL); // idempotent
  });

  afterAll(async () => {
    for (const vault of vaults) await vault.close();
    await db?.drop();
  });

  it('when the gateway, orders, payouts and p2p boot the vault as their roles (no CREATE), then they tokenize and detokenize', async () => {
    const gateway = vaultAs('payments_gateway');
    await gateway.migrate();
    const card = await gateway.tokenize('4111111111111111');
    for (const role of ['payments_orders', 'payments_payouts', 'payments_p2p']) {
      const vault = vaultAs(role);
      await vault.migrate();
      await expect(vault.detokenize(card.token)).resolves.toBe('4111111111111111');
    }
    await expect(runSql(asRole(db.url, 'payments_gateway'), 'CREATE TABLE card_vault.t (id int)')).rejects.toThrow(
      /permission denied for schema card_vault/,
    );
  });

  it('when another service reads the vault, then PostgreSQL refuses', async () => {
    for (const role of ['payments_methods', 'payments_merchant_callbacks'])
      await expect(runSql(asRole(db.url, role), 'SELECT * FROM card_vault.cards')).rejects.toThrow(
        /permission denied for schema card_vault/,
      );
  });

  it('when checkout boots the vault as its role and tokenizes a card twice, then it gets one token (decision 224)', async () => {
    const checkout = vaultAs('payments_checkout');
    await checkout.migrate();
    const first = await checkout.tokenize('4000056655665556');
    // the second time is the ON CONFLICT path: the live card's token read back by its fingerprint
    await expect(checkout.tokenize('4000056655665556')).resolves.toEqual(first);
    await expect(vaultAs('payments_orders').detokenize(first.token)).resolves.toBe('4000056655665556');
  });

  it('when checkout reads a sealed number, changes or removes a card, or reads another schema, then PostgreSQL refuses', async () => {
    const card = await vaultAs('payments_gateway').tokenize('5555555555554444');
    const checkout = asRole(db.url, 'payments_checkout');
    await expect(runSql(checkout, 'SELECT ciphertext FROM card_vault.cards')).rejects.toThrow(
      /permission denied for table cards/,
    );
    await expect(runSql(checkout, 'SELECT * FROM card_vault.cards')).rejects.toThrow(
      /permission denied for table cards/,
    );
    await expect(
      runSql(checkout, `UPDATE card_vault.cards SET erased_at = now() WHERE token = '${card.token}'`),
    ).rejects.toThrow(/permission denied for table cards/);
    await expect(runSql(checkout, `DELETE FROM card_vault.cards WHERE token = '${card.token}'`)).rejects.toThrow(
      /permission denied for table cards/,
    );
    await expect(vaultAs('payments_checkout').detokenize(card.token)).rejects.toThrow(/permission denied/);
    await expect(runSql(checkout, 'CREATE TABLE card_vault.t (id int)')).rejects.toThrow(
      /permission denied for schema card_vault/,
    );
    await runSql(db.url, 'CREATE SCHEMA IF NOT EXISTS gateway; CREATE TABLE IF NOT EXISTS gateway.shops (id int)');
    await runSql(db.url, DB_ROLES_SQL); // gives gateway to its role, as a cluster's Job does
    await expect(runSql(checkout, 'SELECT * FROM gateway.shops')).rejects.toThrow(
      /permission denied for schema gateway/,
    );
    await expect(runSql(checkout, 'CREATE TABLE public.t (id int)')).rejects.toThrow(
      /permission denied for schema public/,
    );
  });

  it("when the schema's owner creates a table later, then the three roles get row rights on it by default", async () => {
    await runSql(db.url, 'SET ROLE payments_card_vault; CREATE TABLE card_vault.later (id int)');
    await runSql(asRole(db.url, 'payments_p2p'), 'INSERT INTO card_vault.later VALUES (1)');
    expect(await runSql(asRole(db.url, 'payments_payouts'), 'SELECT id FROM card_vault.later')).toEqual([{ id: 1 }]);
    await expect(runSql(asRole(db.url, 'payments_checkout'), 'SELECT id FROM card_vault.later')).rejects.toThrow(
      /permission denied for table later/,
    );
  });
});

/** Upgrading a cluster's vault to decision 259 (erased cards keep no fingerprint, BIN or last 4). */
describe('card vault under the per-service roles: a table from before decision 259', () => {
  let db: { url: string; drop(): Promise<void> };
  const config = readCardVaultConfig(new EnvReader(generatedCardVaultEnv()));
  const vaults: CardVault[] = [];
  const vaultAs = (role: string) => {
    const vault = new CardVault(asRole(db.url, role), config, { poolSize: 1 });
    vaults.push(vault);
    return vault;
  };
  const erasedBefore = 'card_00000000-0000-4000-8000-000000000257';

  beforeAll(async () => {
    db = await createTestDatabase();
    await ensureDbRoles(db.url);
    await runSql(db.url, DB_ROLES_SQL);
    // Back to the table as the Job made it before, with a card erased then: only its ciphertext gone.
    await runSql(
      db.url,
      `ALTER TABLE card_vault.cards DROP CONSTRAINT cards_erased_keeps_nothing,
         ALTER COLUMN fingerprint SET NOT NULL, ALTER COLUMN bin SET NOT NULL, ALTER COLUMN last4 SET NOT NULL;
       INSERT INTO card_vault.cards (token, fingerprint, bin, last4, erased_at)
         VALUES ('${erasedBefore}', 'fp-of-the-number', '860049', '6478', now())`,
    );
  });

  afterAll(async () => {
    for (const vault of vaults) await vault.close();
    await db?.drop();
  });

  it('when a service boots on it before the Job ran again, then it stops saying to run the Job', async () => {
    await expect(vaultAs('payments_gateway').migrate()).rejects.toThrow(
      /card_vault\.cards's cards_erased_keeps_nothing \(decision 259\) missing and this role cannot make them: run k8s\/infra\/db-roles\.sql \(the Job payments-db-roles\) again/,
    );
  });

  it('when the Job runs again, then the card erased before is scrubbed and the gateway erases as its role', async () => {
    await runSql(db.url, DB_ROLES_SQL);
    expect(
      await runSql(db.url, `SELECT fingerprint, bin, last4 FROM card_vault.cards WHERE token = '${erasedBefore}'`),
    ).toEqual([{ fingerprint: null, bin: null, last4: null }]);
    const gateway = vaultAs('payments_gateway');
    await gateway.migrate();
    const card = await gateway.tokenize('3566002020360505');
    await expect(gateway.erase(card.token)).resolves.toMatchObject({ token: card.token });
    expect(
      await runSql(db.url, `SELECT fingerprint, bin, last4 FROM card_vault.cards WHERE token = '${card.token}'`),
    ).toEqual([{ fingerprint: null, bin: null, last4: null }]);
    await vaultAs('payments_checkout').migrate();
  });
});
