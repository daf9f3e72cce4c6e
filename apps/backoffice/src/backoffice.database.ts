import { ApiKeyEntity, CompanyEntity, ShopEntity } from '@payments/merchant-admin';
import { openServiceDatabase, serviceDataSourceOptions } from '@payments/platform';
import { DataSource } from 'typeorm';
import { BackofficeConfig } from './config';
import { Messaging1764300000000 } from './migrations/1764300000000-messaging';
import { Reconciliation1764317400000 } from './migrations/1764317400000-reconciliation';
import { OperatorsAndAudit1765100000000 } from './migrations/1765100000000-operators-and-audit';
import { ConsoleSessions1765100000001 } from './migrations/1765100000001-console-sessions';
import { DeadLetters1765100000003 } from './migrations/1765100000003-dead-letters';
import { ConsoleSessionToken1765300000101 } from './migrations/1765300000101-console-session-token';
import { ConsoleSessionIdle1765300000102 } from './migrations/1765300000102-console-session-idle';

export const BACKOFFICE_MIGRATIONS = [
  Messaging1764300000000,
  Reconciliation1764317400000,
  OperatorsAndAudit1765100000000,
  ConsoleSessions1765100000001,
  DeadLetters1765100000003,
  ConsoleSessionToken1765300000101,
  ConsoleSessionIdle1765300000102,
];

/** Creates or upgrades the backoffice's own schema, then lets the connection go. */
export async function migrateBackoffice(config: BackofficeConfig): Promise<void> {
  const own = await openServiceDatabase({
    url: config.databaseUrl,
    schema: config.schema,
    entities: [],
    migrations: BACKOFFICE_MIGRATIONS,
    poolSize: 1,
  });
  await own.destroy();
}

/**
 * The backoffice's one connection pool. Its own tables are named with their schema in every
 * statement; the entities (companies, shops, API keys) are the gateway's, so the pool's default
 * schema is the gateway's (decision 300: an interim step until the gateway answers operator
 * commands over Kafka). Nothing here creates or migrates the gateway's schema.
 */
export function backofficeDataSourceOptions(config: BackofficeConfig) {
  return serviceDataSourceOptions({
    url: config.databaseUrl,
    schema: config.gatewaySchema,
    entities: [CompanyEntity, ShopEntity, ApiKeyEntity],
    migrations: [],
  });
}

export async function openBackofficeDatabase(config: BackofficeConfig): Promise<DataSource> {
  await migrateBackoffice(config);
  return new DataSource(backofficeDataSourceOptions(config)).initialize();
}
