import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { backoffMs } from '@payments/backoff';
// Test infrastructure only; the boundary rule has no override for spec files yet.
import { createTestDatabase, eventually, uniqueName } from '@payments/testing';
import { QueueWorker } from './queue-worker';
import { ClaimRequest, WorkQueue } from './work-queue';

interface ItemRow {
  id: string;
  key: string;
  seq: number;
  grp: string;
  status: string;
  tries: number;
  claim_token: string | null;
}

const T0 = new Date('2026-01-01T00:00:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

describe('work queue against PostgreSQL', () => {
  let db: { url: string; drop(): Promise<void> };
  let ds: DataSource;
  const workers: QueueWorker<ItemRow>[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    ds = new DataSource({ type: 'postgres', url: db.url, entities: [], logging: false });
    await ds.initialize();
  });

  afterAll(async () => {
    for (const w of workers) await w.stop().catch(() => undefined);
    if (ds?.isInitialized) await ds.destroy();
    await db?.drop();
  });

  /** A queue table of its own per test, with the queue's columns and one key, group and try count. */
  async function aQueue(shape: { ordered?: boolean; grouped?: boolean } = {}): Promise<WorkQueue<ItemRow>> {
    const schema = uniqueName('wq_');
    await ds.query(`CREATE SCHEMA "${schema}"`);
    await ds.query(`CREATE TABLE "${schema}".items (
      id text PRIMARY KEY,
      position bigserial NOT NULL UNIQUE,
      key text NOT NULL,
      seq int NOT NULL,
      grp text NOT NULL,
      status text NOT NULL DEFAULT 'pending',
      tries int NOT NULL DEFAULT 0,
      next_attempt_at timestamptz,
      claim_token uuid,
      claimed_by text,
      updated_at timestamptz NOT NULL DEFAULT now())`);
    return new WorkQueue<ItemRow>(ds, {
      table: `"${schema}".items`,
      idColumn: 'id',
      orderColumn: 'position',
      ...(shape.ordered ? { ordering: { keyColumns: ['key'], sequenceColumn: 'seq' } } : {}),
      ...(shape.grouped ? { groupColumn: 'grp' } : {}),
      claimCountColumn: 'tries',
      channel: `${schema}_items`,
    });
  }

  async function add(
    q: WorkQueue<ItemRow>,
    items: { id: string; key?: string; seq?: number; grp?: string; due?: Date }[],
    m: EntityManager = ds.manager,
  ): Promise<void> {
    for (const i of items)
      await m.query(`INSERT INTO ${q.t.table} (id, key, seq, grp, next_attempt_at) VALUES ($1, $2, $3, $4, $5)`, [
        i.id,
        i.key ?? i.id,
        i.seq ?? 1,
        i.grp ?? 'g',
        i.due ?? T0,
      ]);
  }

  function claim(q: WorkQueue<ItemRow>, now: Date, over: Partial<ClaimRequest> = {}): Promise<ItemRow[]> {
    return q.claim({
      now,
      leaseUntil: new Date(now.getTime() + 60_000),
      limit: 10,
      claimToken: randomUUID(),
      claimedBy: 'spec',
      ...over,
    });
  }

  const ids = (rows: ItemRow[]) => rows.map((r) => r.id).sort();

  async function finish(q: WorkQueue<ItemRow>, row: ItemRow, now: Date): Promise<void> {
    await ds.transaction(async (m) => {
      expect(await q.lockClaimed(m, row.id, row.claim_token!, 'id')).not.toBeNull();
      await q.finish(m, row.id, 'done', now);
    });
  }

  it('when a key has several items, then only its earliest pending one is claimed, and the next after it ends', async () => {
    const q = await aQueue({ ordered: true });
    await add(q, [
      { id: 'a2', key: 'a', seq: 2 },
      { id: 'a1', key: 'a', seq: 1 },
      { id: 'a3', key: 'a', seq: 3 },
      { id: 'b1', key: 'b', seq: 1 },
    ]);
    const first = await claim(q, T0);
    expect(ids(first)).toEqual(['a1', 'b1']);
    expect(await claim(q, T0)).toEqual([]);

    await finish(
      q,
      first.find((r) => r.id === 'a1')!,
      T0,
    );
    const second = await claim(q, T0);
    expect(ids(second)).toEqual(['a2']);

    // a2 fails and waits for its retry: a3 still waits behind it.
    await ds.transaction((m) => q.retryAt(m, 'a2', at(5000), T0));
    expect(await claim(q, at(1000))).toEqual([]);
    expect(await q.nextDueAt()).toEqual(at(5000));
    expect(ids(await claim(q, at(5000)))).toEqual(['a2']);
  });

  it('when a group has more ready items than its limit, then only the limit is in flight at once', async () => {
    const q = await aQueue({ ordered: true, grouped: true });
    await add(q, [
      ...['s1', 's2', 's3', 's4', 's5'].map((id) => ({ id, grp: 'busy-shop' })),
      { id: 'o1', grp: 'other-shop' },
    ]);
    const first = await claim(q, T0, { perGroup: 2 });
    expect(ids(first)).toEqual(['o1', 's1', 's2']);
    expect(await claim(q, T0, { perGroup: 2 })).toEqual([]);

    await finish(
      q,
      first.find((r) => r.id === 's1')!,
      T0,
    );
    expect(ids(await claim(q, T0, { perGroup: 2 }))).toEqual(['s3']);
    expect(await claim(q, T0, { perGroup: 2 })).toEqual([]);
  });

  it('when two workers claim at once, then no item is claimed twice', async () => {
    const q = await aQueue({ ordered: true, grouped: true });
    await add(
      q,
      Array.from({ length: 40 }, (_, i) => ({ id: `i${String(i).padStart(2, '0')}`, grp: `g${i % 4}` })),
    );
    const [a, b] = await Promise.all([claim(q, T0, { perGroup: 5 }), claim(q, T0, { perGroup: 5 })]);
    const all = [...ids(a), ...ids(b)];
    expect(new Set(all).size).toBe(all.length);
    expect(all.length).toBeGreaterThan(0);
  });

  it('when a claimer dies, then its item comes back after the lease and its late outcome is not recorded', async () => {
    const q = await aQueue();
    await add(q, [{ id: 'x' }]);
    const [dead] = await claim(q, T0, { leaseUntil: at(30_000) });
    expect(dead.tries).toBe(1);
    expect(await claim(q, at(29_999))).toEqual([]);

    const [again] = await claim(q, at(30_000), { leaseUntil: at(60_000) });
    expect(again.id).toBe('x');
    expect(again.tries).toBe(2);
    await ds.transaction(async (m) => {
      expect(await q.lockClaimed(m, 'x', dead.claim_token!, 'id')).toBeNull();
      expect(await q.lockClaimed(m, 'x', again.claim_token!, 'id, tries')).toEqual({ id: 'x', tries: 2 });
    });
    // Ending it in one statement works for the claim that holds it only, and says which.
    expect(await q.finishIfClaimed(ds.manager, 'x', dead.claim_token!, 'done', at(31_000))).toBe(false);
    expect(await q.finishIfClaimed(ds.manager, 'x', again.claim_token!, 'done', at(31_000))).toBe(true);
    expect(await claim(q, at(90_000))).toEqual([]);
  });

  it('when an item keeps failing, then the worker retries it after a growing backoff until it succeeds', async () => {
    const q = await aQueue();
    const backoff = { baseMs: 100, capMs: 1000 };
    const tries: number[] = [];
    const clock = { now: () => new Date() };
    const worker = new QueueWorker<ItemRow>({
      name: 'spec worker',
      databaseUrl: db.url,
      queue: q,
      concurrency: 4,
      workTimeoutMs: 30_000,
      instanceId: 'spec',
      clock,
      claim: (r) => q.claim(r),
      idOf: (row) => row.id,
      work: async (row, claimToken) => {
        tries.push(Date.now());
        await ds.transaction(async (m) => {
          const claimed = await q.lockClaimed<{ tries: number }>(m, row.id, claimToken, 'tries');
          if (!claimed) return;
          const now = clock.now();
          if (claimed.tries < 3)
            await q.retryAt(m, row.id, new Date(now.getTime() + backoffMs(claimed.tries, backoff)), now);
          else await q.finish(m, row.id, 'done', now);
        });
      },
      pollIntervalMs: 5000,
      minIdleMs: 10,
      logger: new Logger('work-queue.spec'),
    });
    workers.push(worker);
    await worker.start();
    await ds.transaction(async (m) => {
      await add(q, [{ id: 'flaky', due: new Date() }], m);
      q.wake(m);
    });

    const rows = await eventually(async () => {
      const r: ItemRow[] = await ds.query(`SELECT * FROM ${q.t.table} WHERE status = 'done'`);
      return r.length === 1 ? r : undefined;
    });
    expect(rows[0].tries).toBe(3);
    expect(tries).toHaveLength(3);
    // The first wait is at least 100 ms and the second at least 200 ms: the worker slept until each retry fell due.
    expect(tries[1] - tries[0]).toBeGreaterThanOrEqual(100);
    expect(tries[2] - tries[1]).toBeGreaterThanOrEqual(200);
    // Retries fell due well before the 5 s poll: the worker woke for them, it did not wait for a poll.
    expect(tries[2] - tries[0]).toBeLessThan(2500);
  });

  it('when a transaction queues work, then the worker wakes at its commit, not at its next poll', async () => {
    const q = await aQueue({ ordered: true, grouped: true });
    const done: string[] = [];
    const worker = new QueueWorker<ItemRow>({
      name: 'spec worker',
      databaseUrl: db.url,
      queue: q,
      concurrency: 4,
      workTimeoutMs: 30_000,
      instanceId: 'spec',
      clock: { now: () => new Date() },
      claim: (r) => q.claim({ ...r, perGroup: 1 }),
      idOf: (row) => row.id,
      work: async (row, claimToken) => {
        await ds.transaction(async (m) => {
          if (await q.lockClaimed(m, row.id, claimToken, 'id')) await q.finish(m, row.id, 'done', new Date());
        });
        done.push(row.id);
      },
      pollIntervalMs: 60_000,
      minIdleMs: 60_000,
      logger: new Logger('work-queue.spec'),
    });
    workers.push(worker);
    await worker.start();
    await new Promise((r) => setTimeout(r, 200)); // the first round found nothing; the worker sleeps for a minute
    const now = new Date();
    await ds.transaction(async (m) => {
      await add(
        q,
        [1, 2, 3].map((seq) => ({ id: `k${seq}`, key: 'k', seq, due: now })),
        m,
      );
      q.wake(m);
    });
    await eventually(async () => (done.length === 3 ? true : undefined), 5000, 'three items worked');
    expect(done).toEqual(['k1', 'k2', 'k3']);
  });
});
