import { empty, ident, join, param, raw, sql } from './sql';

describe('sql: a tagged template that numbers its own placeholders', () => {
  it('when values are interpolated, then each is a numbered parameter in order', () => {
    const q = sql`SELECT * FROM t WHERE a = ${1} AND b = ${'x'}::text`;
    expect(q.toQuery()).toEqual({ text: 'SELECT * FROM t WHERE a = $1 AND b = $2::text', values: [1, 'x'] });
  });

  it('when a fragment is interpolated, then its parameters are renumbered where it lands', () => {
    const cte = sql`c AS (INSERT INTO t (a, b) VALUES (${'a'}, ${'b'}))`;
    const q = sql`WITH x AS (SELECT ${0}), ${cte}, d AS (SELECT ${9}) SELECT 1`;
    expect(q.text).toBe(
      'WITH x AS (SELECT $1), c AS (INSERT INTO t (a, b) VALUES ($2, $3)), d AS (SELECT $4) SELECT 1',
    );
    expect(q.values).toEqual([0, 'a', 'b', 9]);
  });

  it('when fragments nest several levels deep, then the numbering is still one sequence', () => {
    const inner = sql`${'i'}`;
    const middle = sql`(${inner}, ${'m'})`;
    expect(sql`${'o'} ${middle} ${middle}`.toQuery()).toEqual({
      text: '$1 ($2, $3) ($4, $5)',
      values: ['o', 'i', 'm', 'i', 'm'],
    });
  });

  it('when a value is a param, then every use of it is the same number', () => {
    const now = param(new Date(0));
    const q = sql`VALUES (${now}, ${1}, ${now}), (${now}, ${2})`;
    expect(q.text).toBe('VALUES ($1, $2, $1), ($1, $3)');
    expect(q.values).toEqual([new Date(0), 1, 2]);
  });

  it('when a value looks like SQL, then it is still a parameter, never text', () => {
    const q = sql`SELECT ${"'; DROP TABLE t; --"}`;
    expect(q.toQuery()).toEqual({ text: 'SELECT $1', values: ["'; DROP TABLE t; --"] });
  });

  it('when arrays, null and undefined are interpolated, then they are values as node-postgres takes them', () => {
    expect(sql`${[1, 2]}::int[] ${null} ${undefined}`.values).toEqual([[1, 2], null, undefined]);
  });

  it('when raw text or an identifier is interpolated, then it is text and takes no number', () => {
    const q = sql`SELECT ${raw('count(*)')} FROM ${ident('my "schema"', 'orders')} WHERE id = ${5}`;
    expect(q.toQuery()).toEqual({ text: 'SELECT count(*) FROM "my ""schema"""."orders" WHERE id = $1', values: [5] });
  });

  it('when an identifier is empty or holds NUL, then it is refused with the name', () => {
    expect(() => ident('')).toThrow('ident(): "" is not a name');
    expect(() => ident('a\0b')).toThrow('is not a name');
    expect(() => ident()).toThrow('at least one name');
  });

  it('when fragments are joined, then the separator goes between them and the numbering runs across', () => {
    const rows = [1, 2, 3].map((n) => sql`(${n}, ${`r${n}`})`);
    expect(sql`VALUES ${join(rows)}`.toQuery()).toEqual({
      text: 'VALUES ($1, $2), ($3, $4), ($5, $6)',
      values: [1, 'r1', 2, 'r2', 3, 'r3'],
    });
    expect(join([sql`a = ${1}`, sql`b = ${2}`], ' AND ').text).toBe('a = $1 AND b = $2');
    expect(sql`x${join([])}y`.text).toBe('xy');
    expect(sql`x${empty}y`.toQuery()).toEqual({ text: 'xy', values: [] });
  });

  it('when the values change but the shape does not, then the text is the same (one prepared statement per shape)', () => {
    const q = (id: string, n: number) => sql`UPDATE t SET n = ${n} WHERE id = ${id}`;
    expect(q('a', 1).text).toBe(q('b', 2).text);
  });
});
