import { DataSource } from 'typeorm';
import { createTestDatabase } from '@payments/testing';
import { preparedQuery } from './prepared-query';

describe('preparedQuery: a statement prepared once per connection', () => {
  let db: { url: string; drop(): Promise<void> };
  let ds: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase();
    // One connection: every statement of the test meets the same backend.
    ds = new DataSource({ type: 'postgres', url: db.url, extra: { max: 1 }, logging: false });
    await ds.initialize();
    await ds.query('CREATE TABLE items (id int PRIMARY KEY, n int NOT NULL)');
  });

  afterAll(async () => {
    if (ds?.isInitialized) await ds.destroy();
    await db?.drop();
  });

  const prepared = async () =>
    (await ds.query(`SELECT statement FROM pg_prepared_statements WHERE statement LIKE '%items%' ORDER BY name`)) as {
      statement: string;
    }[];

  it('when the same statement runs again, then the connection prepared it once and each run answers its own rows', async () => {
    const insert = 'INSERT INTO items (id, n) SELECT * FROM unnest($1::int[], $2::int[]) RETURNING id';
    expect(
      await preparedQuery(ds, insert, [
        [1, 2],
        [10, 20],
      ]),
    ).toEqual([{ id: 1 }, { id: 2 }]);
    expect(await preparedQuery(ds, insert, [[3], [30]])).toEqual([{ id: 3 }]);
    expect(await prepared()).toEqual([{ statement: insert }]);
  });

  it('when the statement is an UPDATE, then its rows come back (not [rows, count] as from TypeORM) and in a transaction it sees that transaction', async () => {
    const update = 'UPDATE items SET n = n + 1 WHERE id = ANY($1::int[]) RETURNING id, n';
    await ds
      .transaction(async (m) => {
        expect(await preparedQuery(m, update, [[1, 3]])).toEqual([
          { id: 1, n: 11 },
          { id: 3, n: 31 },
        ]);
        expect(await preparedQuery(m, 'SELECT n FROM items WHERE id = $1', [1])).toEqual([{ n: 11 }]);
        throw new Error('roll back');
      })
      .catch((e: Error) => expect(e.message).toBe('roll back'));
    expect(await preparedQuery(ds, 'SELECT n FROM items WHERE id = $1', [1])).toEqual([{ n: 10 }]);
  });

  it('when a statement fails to prepare, then it fails with the database error and the connection still works', async () => {
    const broken = 'SELECT no_such_column FROM items WHERE id = $1';
    await expect(preparedQuery(ds, broken, [1])).rejects.toMatchObject({ code: '42703' });
    await expect(preparedQuery(ds, broken, [1])).rejects.toMatchObject({ code: '42703' });
    expect(await preparedQuery(ds, 'SELECT n FROM items WHERE id = $1', [2])).toEqual([{ n: 20 }]);
  });
});
