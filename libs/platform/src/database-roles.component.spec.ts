import { asRole, createTestDatabase, DB_ROLES_SQL, ensureDbRoles, runSql } from '@payments/testing';
import { ensureSchema } from './database';

/** k8s/infra/db-roles.sql against a real PostgreSQL: what a service's role may and may not do. */
describe('one database role per service (k8s/infra/db-roles.sql)', () => {
  let db: { url: string; drop(): Promise<void> };

  beforeAll(async () => {
    db = await createTestDatabase();
    await ensureDbRoles(db.url);
    // what a shared owner left behind before the split: a table of the gateway with a secret in it
    await runSql(db.url, `CREATE SCHEMA gateway; CREATE TABLE gateway.shops (id int, secret text)`);
    await runSql(db.url, `INSERT INTO gateway.shops VALUES (1, 'shh')`);
    // a view the reconciliation reads (decision 300), its table, and a table of the same schema it
    // does not read; and the grant on the table itself that the role had before decision 300
    await runSql(
      db.url,
      `CREATE SCHEMA orders; CREATE TABLE orders.orders (id int, card_token text); CREATE TABLE orders.secrets (id int);
       CREATE VIEW orders.ops_orders AS SELECT id FROM orders.orders;
       GRANT USAGE ON SCHEMA orders TO payments_reconciliation; GRANT SELECT ON orders.orders TO payments_reconciliation`,
    );
    await runSql(db.url, DB_ROLES_SQL);
    await runSql(db.url, DB_ROLES_SQL); // idempotent
  });

  afterAll(async () => {
    await db?.drop();
  });

  it('when a service starts as its role, then it can create and use tables in its own schema', async () => {
    const orders = asRole(db.url, 'payments_orders');
    await ensureSchema(orders, 'orders');
    await runSql(orders, 'CREATE TABLE orders.t (id int); INSERT INTO orders.t VALUES (1)');
    expect(await runSql(orders, 'SELECT id FROM orders.t')).toEqual([{ id: 1 }]);
  });

  it("when a service's role reads another service's schema, then PostgreSQL refuses", async () => {
    await expect(runSql(asRole(db.url, 'payments_orders'), 'SELECT * FROM gateway.shops')).rejects.toThrow(
      /permission denied for schema gateway/,
    );
  });

  it('when a role tries to create a schema or a table in public, then PostgreSQL refuses', async () => {
    const orders = asRole(db.url, 'payments_orders');
    await expect(runSql(orders, 'CREATE SCHEMA elsewhere')).rejects.toThrow(/permission denied for database/);
    await expect(runSql(orders, 'CREATE TABLE public.t (id int)')).rejects.toThrow(
      /permission denied for schema public/,
    );
  });

  it("when the roles are set up, then the former owner's tables belong to their service's role", async () => {
    expect(await runSql(asRole(db.url, 'payments_gateway'), 'SELECT secret FROM gateway.shops')).toEqual([
      { secret: 'shh' },
    ]);
  });

  it('when the reconciliation reads as its role, then it reads the views of its list and no table', async () => {
    const reconciliation = asRole(db.url, 'payments_reconciliation');
    await expect(runSql(reconciliation, 'SELECT id FROM orders.ops_orders')).resolves.toEqual([]);
    // the grant on the table it had before decision 300 is gone
    await expect(runSql(reconciliation, 'SELECT id FROM orders.orders')).rejects.toThrow(
      /permission denied for table orders/,
    );
    await expect(runSql(reconciliation, 'SELECT id FROM orders.secrets')).rejects.toThrow(
      /permission denied for table secrets/,
    );
    await expect(runSql(reconciliation, 'SELECT secret FROM gateway.shops')).rejects.toThrow(/permission denied/);
    await expect(runSql(reconciliation, 'INSERT INTO orders.ops_orders VALUES (1)')).rejects.toThrow(
      /permission denied/,
    );
  });

  it("when the roles are set up, then the operators' view belongs to its service's role, which reads the table", async () => {
    const [owner] = await runSql<{ owner: string }>(
      db.url,
      `SELECT pg_get_userbyid(relowner) AS owner FROM pg_class WHERE oid = 'orders.ops_orders'::regclass`,
    );
    expect(owner).toEqual({ owner: 'payments_orders' });
  });
});
