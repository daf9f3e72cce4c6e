import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AUDIT_LOG_COLUMNS } from './audit-log.columns.generated';

const ROOT = path.resolve(__dirname, '../../../..');
const SQL = path.join(ROOT, 'k8s/infra/db-roles.sql');
const GENERATED = path.join(__dirname, 'audit-log.columns.generated.ts');

/** The columns of the audit log as k8s/infra/db-roles.sql creates it: the one place they are written. */
function columnsInDbRoles(): string[] {
  const sql = readFileSync(SQL, 'utf8');
  const start = sql.indexOf('CREATE TABLE IF NOT EXISTS backoffice_audit.audit_log (');
  if (start < 0) throw new Error('db-roles.sql no longer creates backoffice_audit.audit_log');
  const body = sql.slice(sql.indexOf('(', start) + 1, sql.indexOf(');', start));
  return body
    .split('\n')
    .map((l) => l.trim().replace(/,$/, ''))
    .filter((l) => l !== '');
}

function generated(columns: string[]): string {
  return `// Generated from k8s/infra/db-roles.sql (the audit log's columns) by audit-log.ddl.spec.ts:
// UPDATE_AUDIT_LOG_COLUMNS=1 npx jest apps/backoffice/src/operators/audit-log.ddl.spec.ts. Do not edit.
export const AUDIT_LOG_COLUMNS: readonly string[] = [
${columns.map((c) => `  '${c}',`).join('\n')}
];
`;
}

describe('the audit log where db-roles.sql did not make it', () => {
  it('when the backoffice creates the audit log itself, then it has exactly the columns db-roles.sql gives it', () => {
    const columns = columnsInDbRoles();
    if (process.env.UPDATE_AUDIT_LOG_COLUMNS === '1') writeFileSync(GENERATED, generated(columns));
    expect(AUDIT_LOG_COLUMNS).toEqual(columns);
    expect(readFileSync(GENERATED, 'utf8')).toBe(generated(columns));
  });
});
