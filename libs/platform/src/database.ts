import { Client } from 'pg';
import { DataSource, DataSourceOptions, EntitySchema, MixedList } from 'typeorm';

export interface ServiceDatabaseOptions {
  url: string;
  /** The service's own schema; no service reads another's. */
  schema: string;
  entities: MixedList<Function | string | EntitySchema>;
  migrations: MixedList<Function | string>;
  poolSize?: number;
}

/** TypeORM keeps its migrations table in the schema, so the schema must exist before it runs. */
export async function ensureSchema(url: string, schema: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema.replace(/"/g, '')}"`);
  } finally {
    await client.end();
  }
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
    extra: { max: opts.poolSize ?? 10, application_name: opts.schema },
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
