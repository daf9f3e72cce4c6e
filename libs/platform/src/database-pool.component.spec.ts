import { Client } from 'pg';
import { createTestDatabase, eventually } from '@payments/testing';
import { newPool } from './database';

describe('newPool: a pg pool whose idle connections PostgreSQL closes', () => {
  let db: { url: string; drop(): Promise<void> };

  beforeAll(async () => {
    db = await createTestDatabase();
  });

  afterAll(async () => {
    await db?.drop();
  });

  it('when PostgreSQL terminates an idle connection (a restart), then the pool warns, does not throw, and the next query reconnects', async () => {
    const warnings: string[] = [];
    const pool = newPool({ connectionString: db.url, max: 1, application_name: 'pool-under-test' }, (line) =>
      warnings.push(line),
    );
    try {
      await pool.query('SELECT 1'); // one connection, now idle in the pool
      const admin = new Client({ connectionString: db.url });
      await admin.connect();
      try {
        const { rows } = await admin.query(
          `SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE application_name = 'pool-under-test'`,
        );
        expect(rows).toEqual([{ done: true }]);
      } finally {
        await admin.end();
      }
      // Without a listener this 'error' event is thrown from the socket callback and ends the process.
      await eventually(async () => (warnings.length > 0 ? true : undefined), 5000, 'the pool to see its client go');
      expect(warnings[0]).toMatch(/^idle database connection lost \(.+\); the next query reconnects$/);
      expect((await pool.query('SELECT 2 AS n')).rows).toEqual([{ n: 2 }]);
    } finally {
      await pool.end();
    }
  });
});
