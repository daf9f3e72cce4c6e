import { EnvReader } from '@payments/platform';
import { readCardVaultConfig } from './card-vault-config';
import { CardVault, rotateAll } from './card-vault';

/**
 * `npm run vault:rotate`: re-seals every card number under the newest key of CARD_VAULT_KEYS, in
 * batches, while the services run. Stopped at any point, run it again: it resumes.
 */
async function main(): Promise<void> {
  const env = new EnvReader();
  const databaseUrl = env.string('DATABASE_URL');
  const batchSize = env.int('CARD_VAULT_ROTATE_BATCH', 500, { min: 1, max: 10_000 });
  const pauseMs = env.int('CARD_VAULT_ROTATE_PAUSE_MS', 0, { min: 0, max: 60_000 });
  const config = readCardVaultConfig(env, 'none');
  env.done('vault:rotate');
  const vault = new CardVault(databaseUrl, config, { poolSize: 2 });
  try {
    await vault.migrate();
    console.log(`card vault: before: ${JSON.stringify(await vault.countByKey())}; sealing under ${vault.activeKeyId}`);
    const { rotated } = await rotateAll(vault, {
      batchSize,
      pauseMs,
      onBatch: (n) => console.log(`card vault: ${n} re-sealed so far`),
    });
    console.log(`card vault: ${rotated} re-sealed; after: ${JSON.stringify(await vault.countByKey())}`);
    console.log('card vault: no number is sealed under an older key; those keys may now leave CARD_VAULT_KEYS');
  } finally {
    await vault.close();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
