// npm run vault:rotate [-- --new-key]: re-seals every card number under the newest key of
// CARD_VAULT_KEYS, in batches, while the services run (docs/security.md, "Keys and rotation").
// Without CARD_VAULT_KEYS in the environment it rotates the local stack's vault: the keys of
// .run/card-vault.json and the database `npm start` uses; `--new-key` first appends a new local
// key (restart `npm start` so that the services seal new cards under it too).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ensurePostgres } from '../infra/postgres.mjs';
import { addLocalCardVaultKey, localCardVaultEnv } from '../stack/card-vault-keys.mjs';
import { build, ROOT } from '../stack/common.mjs';

const runDir = path.join(ROOT, '.run');
const local = !process.env.CARD_VAULT_KEYS;
if (process.argv.includes('--new-key')) {
  if (!local) throw new Error('--new-key manages the local keys only; add a key to CARD_VAULT_KEYS instead');
  console.log(`card vault: new local key ${addLocalCardVaultKey(runDir)} added to .run/card-vault.json`);
}
build();
const databaseUrl = process.env.DATABASE_URL ?? (await ensurePostgres({ rootDir: ROOT })).url;
const run = spawnSync(
  process.execPath,
  ['-r', 'tsconfig-paths/register', path.join(ROOT, 'dist/libs/card-vault/src/rotate.main.js')],
  {
    cwd: ROOT,
    stdio: 'inherit',
    env: {
      ...process.env,
      ...(local ? localCardVaultEnv(runDir) : {}),
      DATABASE_URL: databaseUrl,
      TS_NODE_PROJECT: path.join(ROOT, 'tsconfig.dist.json'),
    },
  },
);
process.exit(run.status ?? 1);
