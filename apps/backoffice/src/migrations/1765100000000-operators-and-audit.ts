import { MigrationInterface, QueryRunner } from 'typeorm';
import { auditLogDdl, auditSchemaOf } from '../operators/audit-log.ddl';

/** Named operators (tokens stored hashed) and the audit log of their actions (issue 15, decisions 150, 262). */
export class OperatorsAndAudit1765100000000 implements MigrationInterface {
  name = 'OperatorsAndAudit1765100000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'backoffice';
    // In a cluster k8s/infra/db-roles.sql has made it, owned by a role nobody logs in as (decision 262).
    for (const sql of await auditLogDdl(q, auditSchemaOf(s))) await q.query(sql);
    await q.query(`CREATE TABLE "${s}".operators (
      id uuid PRIMARY KEY,
      name text NOT NULL,
      role text NOT NULL CHECK (role IN ('viewer', 'operator', 'admin')),
      token_hash text NOT NULL UNIQUE,
      token_prefix text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      created_by text NOT NULL,
      disabled_at timestamptz
    )`);
    await q.query(`CREATE UNIQUE INDEX operators_name_key ON "${s}".operators (lower(name))`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'backoffice';
    await q.query(`DROP TABLE IF EXISTS "${auditSchemaOf(s)}".audit_log`);
    await q.query(`DROP TABLE "${s}".operators`);
  }
}
