import { createHash } from 'node:crypto';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';

/** A statement's name on a connection, from its text: the same text is the same statement. */
const names = new Map<string, string>();

function nameOf(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `p_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    // The hot statements are a few dozen texts; a caller that built endless variants would only
    // lose the cache, not grow it without bound.
    if (names.size < 10_000) names.set(text, name);
  }
  return name;
}

interface PgClient {
  query(config: { name: string; text: string; values: readonly unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * Runs a statement as a named prepared statement of its connection and answers its rows.
 *
 * TypeORM's `query` sends every statement unnamed, so PostgreSQL parses, analyses and plans it
 * each time: for the CTE statements of the hot paths planning was a quarter of their time in the
 * database (pg_stat_statements, docs/decisions.md 247). Named, a connection parses a text once,
 * and after five runs PostgreSQL may keep a generic plan (plan_cache_mode auto: only where it is
 * not dearer than the custom ones). node-postgres keeps the names it prepared per connection, and
 * forgets one whose Parse failed. The statement must return rows or nothing (a SELECT, or a
 * data-modifying statement with or without RETURNING): this answers `rows`, where TypeORM answers
 * `[rows, count]` for a bare UPDATE or DELETE.
 *
 * `target`: a transaction's manager (its connection), or the data source (a connection from the
 * pool for this one statement, like `dataSource.query`).
 */
export async function preparedQuery<T>(
  target: DataSource | EntityManager,
  text: string,
  values: readonly unknown[],
): Promise<T[]> {
  const manager = 'connection' in target ? target : target.manager;
  const own: QueryRunner | undefined = manager.queryRunner ? undefined : manager.connection.createQueryRunner();
  const runner = own ?? manager.queryRunner!;
  try {
    const client = (await runner.connect()) as PgClient;
    const result = await client.query({ name: nameOf(text), text, values });
    return result.rows as T[];
  } finally {
    if (own) await own.release();
  }
}
