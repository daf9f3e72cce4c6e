// `npm run reconcile`: one reconciliation run on demand, the same checks and tables as the
// backoffice's continuous job. Prints the report; exits 0 when clean, 1 on breaches, 2 when it could
// not run (another run holds the lock, the database is unreachable).
import { EnvReader, newPool } from '@payments/platform';
import { formatReport, reconcile } from './reconcile';
import { readReconciliationConfig } from './reconciliation.config';
import { ReconciliationRepository } from './reconciliation.repository';

async function main(): Promise<number> {
  const env = new EnvReader();
  const databaseUrl = env.string('DATABASE_URL');
  const schema = env.string('BACKOFFICE_DB_SCHEMA', 'backoffice');
  const config = readReconciliationConfig(env, databaseUrl);
  env.done('reconcile');
  const reads = newPool({ connectionString: config.databaseUrl, max: 1 }, console.warn);
  const writes = newPool({ connectionString: databaseUrl, max: 1 }, console.warn);
  try {
    const run = await reconcile(
      reads,
      async (work) => {
        const client = await writes.connect();
        try {
          await client.query('BEGIN');
          const result = await work(async (sql, params) => (await client.query(sql, params)).rows);
          await client.query('COMMIT');
          return result;
        } catch (err) {
          await client.query('ROLLBACK');
          throw err;
        } finally {
          client.release();
        }
      },
      new ReconciliationRepository(schema),
      config,
      () => new Date(),
    );
    if (!run) {
      console.error('reconcile: another run is in progress (a backoffice or another `npm run reconcile`); try again');
      return 2;
    }
    console.log(formatReport(run));
    return run.results.some((r) => r.breaches.length > 0) ? 1 : 0;
  } finally {
    await Promise.all([reads.end(), writes.end()]);
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`reconcile: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(2);
  },
);
