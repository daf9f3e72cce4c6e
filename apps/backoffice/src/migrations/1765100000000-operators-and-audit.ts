import { MigrationInterface, QueryRunner } from 'typeorm';

/** Named operators (tokens stored hashed) and the audit log of their actions (issue 15, decision 150). */
export class OperatorsAndAudit1765100000000 implements MigrationInterface {
  name = 'OperatorsAndAudit1765100000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'backoffice';
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
    await q.query(`CREATE TABLE "${s}".audit_log (
      id bigserial PRIMARY KEY,
      at timestamptz NOT NULL DEFAULT now(),
      operator_id text NOT NULL,
      operator_name text NOT NULL,
      operator_role text NOT NULL,
      action text NOT NULL,
      object_type text NOT NULL,
      object_id text,
      before jsonb,
      after jsonb,
      reason text,
      request text NOT NULL
    )`);
    await q.query(`CREATE INDEX audit_log_operator ON "${s}".audit_log (operator_id, id)`);
    await q.query(`CREATE INDEX audit_log_object ON "${s}".audit_log (object_type, object_id, id)`);
    await q.query(`CREATE INDEX audit_log_action ON "${s}".audit_log (action, id)`);
    await q.query(`CREATE INDEX audit_log_at ON "${s}".audit_log (at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'backoffice';
    await q.query(`DROP TABLE "${s}".audit_log`);
    await q.query(`DROP TABLE "${s}".operators`);
  }
}
