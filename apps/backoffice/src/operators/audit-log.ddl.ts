import { QueryRunner } from 'typeorm';
import { AUDIT_LOG_COLUMNS } from './audit-log.columns.generated';

/**
 * The audit log has a schema of its own, beside the backoffice's (decision 262): PostgreSQL lets a
 * schema's owner drop any table in it, so the table its writer must not remove cannot sit in the
 * schema the writer owns.
 */
export const auditSchemaOf = (schema: string) => `${schema}_audit`;

/**
 * What the backoffice's first start creates where nobody has: in a cluster, k8s/infra/db-roles.sql
 * made the schema and the table before, owned by payments_audit, and the backoffice's role may not
 * create anything there, so nothing is run. The columns are db-roles.sql's, generated from it
 * (audit-log.columns.generated.ts, checked by audit-log.ddl.spec.ts).
 */
export async function auditLogDdl(q: QueryRunner, a: string): Promise<string[]> {
  const [found] = await q.query(`SELECT to_regclass($1) AS t`, [`"${a}".audit_log`]);
  if (found?.t) return [];
  return [
    `CREATE SCHEMA IF NOT EXISTS "${a}"`,
    `CREATE TABLE "${a}".audit_log (${AUDIT_LOG_COLUMNS.join(', ')})`,
    `CREATE INDEX audit_log_operator ON "${a}".audit_log (operator_id, id)`,
    `CREATE INDEX audit_log_object ON "${a}".audit_log (object_type, object_id, id)`,
    `CREATE INDEX audit_log_action ON "${a}".audit_log (action, id)`,
    `CREATE INDEX audit_log_at ON "${a}".audit_log (at)`,
  ];
}
