import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { createTestDatabase } from '@payments/testing';
import { ensureSchema } from './database';

const ROLES_SQL = readFileSync(path.join(__dirname, '..', '..', '..', 'k8s', 'infra', 'db-roles.sql'), 'utf8');
// Every service role the script lists (a new service cannot be missed), then the two it grants apart.
const ROLES = [...ROLES_SQL.matchAll(/\('(payments_\w+)', '\w+'\)/g)]
  .map((m) => m[1])
  .concat('payments_reconciliation', 'payments_checkout');

/** The URL of `url`'s database as another role. */
function as(url: string, role: string): string {
  const u = new URL(url);
  u.username = role;
  u.password = 'role-test-password';
  return u.toString();
}

async function run<T>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

/** k8s/infra/db-roles.sql against a real PostgreSQL: what a service's role may and may not do. */
describe('one database role per service (k8s/infra/db-roles.sql)', () => {
  let db: { url: string; drop(): Promise<void> };

  beforeAll(async () => {
    db = await createTestDatabase();
    for (const role of ROLES)
      await run(
        db.url,
        `DO $$ BEGIN
           IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${role}') THEN CREATE ROLE ${role} LOGIN; END IF;
         -- roles are the cluster's: another suite may create the same one at the same moment
         EXCEPTION WHEN unique_violation OR duplicate_object THEN NULL;
         END $$; ALTER ROLE ${role} PASSWORD 'role-test-password'`,
      );
    // what a shared owner left behind before the split: a table of the gateway with a secret in it
    await run(db.url, `CREATE SCHEMA gateway; CREATE TABLE gateway.shops (id int, secret text)`);
    await run(db.url, `INSERT INTO gateway.shops VALUES (1, 'shh')`);
    // a table the reconciliation reads, and one of the same schema it does not
    await run(
      db.url,
      `CREATE SCHEMA orders; CREATE TABLE orders.orders (id int); CREATE TABLE orders.secrets (id int)`,
    );
    await run(db.url, ROLES_SQL);
    await run(db.url, ROLES_SQL); // idempotent
  });

  afterAll(async () => {
    await db?.drop();
  });

  it('when a service starts as its role, then it can create and use tables in its own schema', async () => {
    const orders = as(db.url, 'payments_orders');
    await ensureSchema(orders, 'orders');
    await run(orders, 'CREATE TABLE orders.t (id int); INSERT INTO orders.t VALUES (1)');
    expect(await run(orders, 'SELECT id FROM orders.t')).toEqual([{ id: 1 }]);
  });

  it("when a service's role reads another service's schema, then PostgreSQL refuses", async () => {
    await expect(run(as(db.url, 'payments_orders'), 'SELECT * FROM gateway.shops')).rejects.toThrow(
      /permission denied for schema gateway/,
    );
  });

  it('when a role tries to create a schema or a table in public, then PostgreSQL refuses', async () => {
    const orders = as(db.url, 'payments_orders');
    await expect(run(orders, 'CREATE SCHEMA elsewhere')).rejects.toThrow(/permission denied for database/);
    await expect(run(orders, 'CREATE TABLE public.t (id int)')).rejects.toThrow(/permission denied for schema public/);
  });

  it("when the roles are set up, then the former owner's tables belong to their service's role", async () => {
    expect(await run(as(db.url, 'payments_gateway'), 'SELECT secret FROM gateway.shops')).toEqual([{ secret: 'shh' }]);
  });

  it('when the reconciliation reads as its role, then it reads the tables of its list and nothing else', async () => {
    const reconciliation = as(db.url, 'payments_reconciliation');
    await expect(run(reconciliation, 'SELECT id FROM orders.orders')).resolves.toEqual([]);
    await expect(run(reconciliation, 'SELECT id FROM orders.secrets')).rejects.toThrow(
      /permission denied for table secrets/,
    );
    await expect(run(reconciliation, 'SELECT secret FROM gateway.shops')).rejects.toThrow(/permission denied/);
    await expect(run(reconciliation, 'INSERT INTO orders.orders VALUES (1)')).rejects.toThrow(/permission denied/);
  });
});
