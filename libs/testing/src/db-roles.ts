import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';

/**
 * k8s/infra/db-roles.sql, for the suites that run it against a real PostgreSQL as a cluster's Job
 * does (decisions 106, 259, 262): the script, the login roles it expects, and how to act as one.
 */
export const DB_ROLES_SQL = readFileSync(
  path.join(__dirname, '..', '..', '..', 'k8s', 'infra', 'db-roles.sql'),
  'utf8',
);

/** Every service role the script lists (a new service cannot be missed), then the two it grants apart. */
export const DB_ROLES = [...DB_ROLES_SQL.matchAll(/\('(payments_\w+)', '\w+'\)/g)]
  .map((m) => m[1])
  .concat('payments_reconciliation', 'payments_checkout');

const ROLE_PASSWORD = 'role-test-password';

/** The URL of `url`'s database as another role. */
export function asRole(url: string, role: string): string {
  const u = new URL(url);
  u.username = role;
  u.password = ROLE_PASSWORD;
  return u.toString();
}

/** Runs `sql` on its own connection to `url`; the rows of its last statement. */
export async function runSql<T>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

/** The services' roles, as CloudNativePG makes them in a cluster (they are the cluster's, not the database's). */
export async function ensureDbRoles(url: string): Promise<void> {
  for (const role of DB_ROLES)
    await runSql(
      url,
      `DO $$ BEGIN
         IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${role}') THEN CREATE ROLE ${role} LOGIN; END IF;
       -- roles are the cluster's: another suite may create the same one at the same moment
       EXCEPTION WHEN unique_violation OR duplicate_object THEN NULL;
       END $$; ALTER ROLE ${role} PASSWORD '${ROLE_PASSWORD}'`,
    );
}
