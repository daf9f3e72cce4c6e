import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { AccountRef, accountKey } from '@payments/ledger-domain';
import { openServiceDatabase } from '@payments/platform';
import { createTestDatabase, eventually } from '@payments/testing';
import { LEDGER_MIGRATIONS } from '../migrations';
import { LedgerRepository } from './ledger.repository';

/**
 * LedgerRepository.lock against real PostgreSQL: accounts are locked in key order and a missing
 * one is opened without holding another's lock meanwhile, so two transactions that open and lock
 * the same accounts never wait for each other in a cycle (a deadlock PostgreSQL aborts one for).
 */
describe('ledger: locking accounts, some of them new', () => {
  let db: { url: string; drop(): Promise<void> };
  let ds: DataSource;
  let books: LedgerRepository;

  beforeAll(async () => {
    db = await createTestDatabase();
    ds = await openServiceDatabase({ url: db.url, schema: 'ledger', entities: [], migrations: LEDGER_MIGRATIONS });
    books = new LedgerRepository({ schema: 'ledger' });
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  /** A manager whose INSERT waits until the spec opens its gate; every other statement runs at once. */
  const gated = (m: EntityManager) => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let reached!: () => void;
    const atGate = new Promise<void>((resolve) => (reached = resolve));
    const manager = {
      query: async (sql: string, params?: unknown[]) => {
        if (/^\s*INSERT/i.test(sql)) {
          reached();
          await gate;
        }
        return m.query(sql, params);
      },
    } as unknown as EntityManager;
    return { manager, open: () => open(), atGate };
  };

  /** Runs lock in a transaction of its own through a gated manager; answers the gate and the outcome. */
  const lockInTransaction = (refs: AccountRef[]) => {
    let control!: ReturnType<typeof gated>;
    let ready!: () => void;
    const started = new Promise<void>((resolve) => (ready = resolve));
    const done = ds.transaction(async (m) => {
      control = gated(m);
      ready();
      const locked = await books.lock(control.manager, refs);
      return refs.map((r) => locked.of(r).toFixed());
    });
    return { started: started.then(() => control), done };
  };

  const waitingOnALock = async () =>
    Number(
      (
        await ds.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        )
      )[0].n,
    );

  it('opens an account another transaction opened meanwhile without a deadlock', async () => {
    const tag = randomUUID().slice(0, 8).toUpperCase();
    // Keys sort adjustments:… before fx:…; neither exists yet.
    const a: AccountRef = { owner: 'adjustments', currency: `A${tag}` };
    const n: AccountRef = { owner: 'fx', currency: `N${tag}` };
    expect(accountKey(a) < accountKey(n)).toBe(true);

    // T2 finds neither account and stops before opening them.
    const t2 = lockInTransaction([a, n]);
    const g2 = await t2.started;
    await g2.atGate;
    // Meanwhile another transaction opens A and commits.
    await ds.transaction((m) => books.lock(m, [a]));
    // T1 finds A but not N, and stops before opening N.
    const t1 = lockInTransaction([a, n]);
    const g1 = await t1.started;
    await g1.atGate;
    // T2 opens N, then locks both: it must not find A held by T1 while T1 is about to wait for N.
    g2.open();
    let t2Done = false;
    void t2.done.then(
      () => (t2Done = true),
      () => (t2Done = true),
    );
    await eventually(
      async () => (t2Done || (await waitingOnALock()) > 0 ? true : undefined),
      10_000,
      'T2 done or waiting',
    );
    g1.open();

    const [r1, r2] = await Promise.allSettled([t1.done, t2.done]);
    expect(r2).toEqual({ status: 'fulfilled', value: ['0', '0'] });
    expect(r1).toEqual({ status: 'fulfilled', value: ['0', '0'] });
  });

  it('answers the balances of accounts that all exist, and of accounts it opens', async () => {
    const tag = randomUUID().slice(0, 8).toUpperCase();
    const a: AccountRef = { owner: 'adjustments', currency: `A${tag}` };
    const f: AccountRef = { owner: 'fee_revenue', currency: `F${tag}` };
    await ds.transaction((m) => books.lock(m, [a]));
    await ds.query(`UPDATE ledger.accounts SET balance = -12.5 WHERE key = $1`, [accountKey(a)]);
    const opened = await ds.transaction((m) => books.lock(m, [f, a]));
    expect([opened.of(a).toFixed(), opened.of(f).toFixed()]).toEqual(['-12.5', '0']);
    const existing = await ds.transaction((m) => books.lock(m, [a, f]));
    expect([existing.of(a).toFixed(), existing.of(f).toFixed()]).toEqual(['-12.5', '0']);
  });
});
