import { QueryRunner } from 'typeorm';

/**
 * Widens (or narrows) a `CHECK (column IN (...))` constraint by the values it lists now, not by a
 * list written here: two migrations that each add a kind of transaction or owner of account, in
 * whichever order they run, keep each other's values.
 */
export async function changeCheckValues(
  q: QueryRunner,
  schema: string,
  table: string,
  constraint: string,
  column: string,
  change: { add?: string[]; remove?: string[] },
): Promise<void> {
  const rows: { def: string }[] = await q.query(
    `SELECT pg_get_constraintdef(c.oid) AS def FROM pg_constraint c
     JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
     WHERE n.nspname = $1 AND t.relname = $2 AND c.conname = $3`,
    [schema, table, constraint],
  );
  if (!rows[0]) throw new Error(`no constraint ${constraint} on ${schema}.${table}`);
  const now = [...rows[0].def.matchAll(/'([^']+)'/g)].map((m) => m[1]);
  const values = [...new Set([...now, ...(change.add ?? [])])].filter((v) => !change.remove?.includes(v));
  if (values.some((v) => !/^[a-z0-9_]+$/.test(v)))
    throw new Error(`unexpected value in ${constraint}: ${values.join()}`);
  await q.query(`ALTER TABLE "${schema}".${table} DROP CONSTRAINT ${constraint}`);
  await q.query(
    `ALTER TABLE "${schema}".${table} ADD CONSTRAINT ${constraint} CHECK (${column} IN (${values.map((v) => `'${v}'`).join(', ')}))`,
  );
}
