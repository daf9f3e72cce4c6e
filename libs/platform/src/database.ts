import { Client, Pool, PoolConfig } from 'pg';
import { DataSource, DataSourceOptions, EntitySchema, MixedList } from 'typeorm';

export interface ServiceDatabaseOptions {
  url: string;
  /** The service's own schema; no service reads another's. */
  schema: string;
  entities: MixedList<Function | string | EntitySchema>;
  migrations: MixedList<Function | string>;
  poolSize?: number;
}

/**
 * TypeORM keeps its migrations table in the schema, so the schema must exist before it runs. In a
 * cluster a service's role owns its schema and may not create any (k8s/infra/db-roles.sql), and
 * PostgreSQL checks that right even for CREATE SCHEMA IF NOT EXISTS: so look first.
 */
export async function ensureSchema(url: string, schema: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    if (rows.length === 0) await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema.replace(/"/g, '')}"`);
  } finally {
    await client.end();
  }
}

/**
 * Connections a service's pool may open when it does not size its own: DATABASE_POOL_MAX (1–100),
 * else 10. The test stacks run every service in one process, two stacks at a time, on a
 * PostgreSQL with 100 connection slots: they set it lower (tests/support/stack.ts).
 */
export function defaultPoolSize(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.DATABASE_POOL_MAX;
  if (raw === undefined || raw === '') return 10;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 100)
    throw new Error(`DATABASE_POOL_MAX must be an integer from 1 to 100, got ${JSON.stringify(raw)}`);
  return n;
}

export function serviceDataSourceOptions(opts: ServiceDatabaseOptions): DataSourceOptions {
  return {
    type: 'postgres',
    url: opts.url,
    schema: opts.schema,
    entities: opts.entities,
    migrations: opts.migrations,
    migrationsTableName: 'migrations',
    migrationsRun: false,
    synchronize: false,
    extra: { max: opts.poolSize ?? defaultPoolSize(), application_name: opts.schema },
  };
}

/** Creates the schema, connects, and runs pending migrations — every service does this at start. */
export async function openServiceDatabase(opts: ServiceDatabaseOptions): Promise<DataSource> {
  await ensureSchema(opts.url, opts.schema);
  const dataSource = new DataSource(serviceDataSourceOptions(opts));
  await dataSource.initialize();
  await dataSource.runMigrations({ transaction: 'each' });
  return dataSource;
}

/** numeric ↔ string: money stays a decimal string from SQL to the wire; never a JS number. */
export const NumericStringTransformer = {
  to: (value: string | null | undefined) => value,
  from: (value: string | null) => value,
};

/**
 * A pg Pool that survives PostgreSQL closing its idle connections (a restart, a failover): such a
 * client emits 'error' on the pool, and an unhandled 'error' event ends the process. The fault
 * suite's PostgreSQL restart killed the gateway that way. The next query connects again.
 */
export function newPool(config: PoolConfig, warn: (line: string) => void): Pool {
  const pool = new Pool(config);
  pool.on('error', (err) => warn(`idle database connection lost (${err.message}); the next query reconnects`));
  return pool;
}
