import { Client } from 'pg';
import { openServiceDatabase } from '@payments/platform';
import { asRole, createTestDatabase, DB_ROLES_SQL, ensureDbRoles, runSql } from '@payments/testing';
import { BACKOFFICE_MIGRATIONS } from '../backoffice.database';

/**
 * Issue 28 item 3, decision 262: the audit log against a real PostgreSQL, set up as in a cluster
 * (k8s/infra/db-roles.sql, the backoffice's own migrations run as its role). Its writer can add
 * and read records, and can neither rewrite, remove nor hand itself the right to.
 */
describe('the audit log its writer cannot rewrite', () => {
  let db: { url: string; drop(): Promise<void> };
  let backoffice: string;
  const count = async () =>
    (await runSql<{ n: number }>(db.url, 'SELECT count(*)::int AS n FROM backoffice_audit.audit_log'))[0].n;

  beforeAll(async () => {
    db = await createTestDatabase();
    await ensureDbRoles(db.url);
    await runSql(db.url, DB_ROLES_SQL); // the schemas, before any service started
    backoffice = asRole(db.url, 'payments_backoffice');
    // The backoffice's first start, as its own role: its migrations make the audit log.
    const started = await openServiceDatabase({
      url: backoffice,
      schema: 'backoffice',
      entities: [],
      migrations: BACKOFFICE_MIGRATIONS,
      poolSize: 1,
    });
    await started.destroy();
    await runSql(db.url, DB_ROLES_SQL); // run again once it has started, as docs/deployment.md says
    await runSql(
      backoffice,
      `INSERT INTO backoffice_audit.audit_log (operator_id, operator_name, operator_role, action, object_type, object_id, request)
       VALUES ('op-1', 'Alice', 'admin', 'order.resolve', 'order', 'o-1', 'POST /ops/v1/orders/o-1/resolve')`,
    );
  });

  afterAll(async () => {
    await db?.drop();
  });

  it('when the backoffice adds and reads records as its role, then both work', async () => {
    await runSql(
      backoffice,
      `INSERT INTO backoffice_audit.audit_log (operator_id, operator_name, operator_role, action, object_type, request)
       VALUES ('op-2', 'Bob', 'operator', 'card.delete', 'card', 'DELETE /ops/v1/cards/x')`,
    );
    const rows = await runSql<{ operator_name: string }>(
      backoffice,
      'SELECT operator_name FROM backoffice_audit.audit_log ORDER BY id',
    );
    expect(rows.map((r) => r.operator_name)).toEqual(['Alice', 'Bob']);
  });

  it('when the table is set up, then a role nobody logs in as owns it', async () => {
    const [owner] = await runSql<{ owner: string; login: boolean }>(
      db.url,
      `SELECT r.rolname AS owner, r.rolcanlogin AS login FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner
        WHERE c.oid = 'backoffice_audit.audit_log'::regclass`,
    );
    expect(owner).toEqual({ owner: 'payments_audit', login: false });
  });

  it.each([
    [
      'UPDATE',
      `UPDATE backoffice_audit.audit_log SET operator_name = 'Mallory'`,
      /permission denied for table audit_log/,
    ],
    ['DELETE', 'DELETE FROM backoffice_audit.audit_log', /permission denied for table audit_log/],
    ['TRUNCATE', 'TRUNCATE backoffice_audit.audit_log', /permission denied for table audit_log/],
    [
      'GRANT',
      'GRANT UPDATE, DELETE ON backoffice_audit.audit_log TO payments_backoffice',
      /no privileges were granted|permission denied/,
    ],
    ['DROP', 'DROP TABLE backoffice_audit.audit_log', /must be owner of table audit_log/],
    ['ALTER', 'ALTER TABLE backoffice_audit.audit_log DISABLE TRIGGER ALL', /must be owner of table audit_log/],
  ])(
    'when the backoffice tries %s as its role, then PostgreSQL refuses and the records stay',
    async (_, sql, refusal) => {
      const before = await runSql(db.url, 'SELECT * FROM backoffice_audit.audit_log ORDER BY id');
      // GRANT without the grant option is only a warning in PostgreSQL: check that nothing was granted.
      const client = new Client({ connectionString: backoffice });
      const warnings: string[] = [];
      client.on('notice', (n) => warnings.push(n.message ?? ''));
      await client.connect();
      try {
        const attempt = client.query(sql).then(
          () => warnings.join('; '),
          (err: Error) => err.message,
        );
        expect(await attempt).toMatch(refusal);
      } finally {
        await client.end();
      }
      expect(await runSql(db.url, 'SELECT * FROM backoffice_audit.audit_log ORDER BY id')).toEqual(before);
      const [rights] = await runSql<{ update: boolean; delete: boolean }>(
        db.url,
        `SELECT has_table_privilege('payments_backoffice', 'backoffice_audit.audit_log', 'UPDATE') AS update,
              has_table_privilege('payments_backoffice', 'backoffice_audit.audit_log', 'DELETE') AS delete`,
      );
      expect(rights).toEqual({ update: false, delete: false });
      expect(await count()).toBeGreaterThan(0);
    },
  );
});
