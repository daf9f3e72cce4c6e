/**
 * The role the backoffice's reconciliation and overview read the other services' data as
 * (`RECONCILIATION_DATABASE_URL`, decisions 106 and 300). It is granted SELECT on the services'
 * operator views (`<schema>.ops_<name>`) and on nothing else.
 */
export const OPS_READER_ROLE = 'payments_reconciliation';

/**
 * The statement a service's migration runs after creating its operator views (decision 300): the
 * views' owner, the service's own role, grants OPS_READER_ROLE USAGE on its schema and SELECT on
 * those views. A view reads its tables with its owner's rights, so the reader needs no right on the
 * tables themselves. Only where that role exists (a cluster set up by k8s/infra/db-roles.sql, which
 * grants the same views again); elsewhere it grants nothing.
 */
export function grantOpsViewsSql(schema: string, views: readonly string[]): string {
  const s = `"${schema.replace(/"/g, '')}"`;
  return `DO $$ BEGIN
      IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${OPS_READER_ROLE}') THEN
        GRANT USAGE ON SCHEMA ${s} TO ${OPS_READER_ROLE};
        GRANT SELECT ON TABLE ${views.map((v) => `${s}.${v}`).join(', ')} TO ${OPS_READER_ROLE};
      END IF;
    END $$`;
}
