// Generated from k8s/infra/db-roles.sql (the audit log's columns) by audit-log.ddl.spec.ts:
// UPDATE_AUDIT_LOG_COLUMNS=1 npx jest apps/backoffice/src/operators/audit-log.ddl.spec.ts. Do not edit.
export const AUDIT_LOG_COLUMNS: readonly string[] = [
  'id bigserial PRIMARY KEY',
  'at timestamptz NOT NULL DEFAULT now()',
  'operator_id text NOT NULL',
  'operator_name text NOT NULL',
  'operator_role text NOT NULL',
  'action text NOT NULL',
  'object_type text NOT NULL',
  'object_id text',
  'before jsonb',
  'after jsonb',
  'reason text',
  'request text NOT NULL',
];
