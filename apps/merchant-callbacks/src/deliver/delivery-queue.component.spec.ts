import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { toCallbackBody } from '@payments/merchant-callbacks-domain';
import { Inbox } from '@payments/messaging';
import { openServiceDatabase } from '@payments/platform';
// Test infrastructure only; the boundary rule has no override for spec files yet.
import { createTestDatabase } from '@payments/testing';
import { MerchantCallbacksConfig } from '../config';
import { ClaimedDelivery, DeliveryOutcome, DeliveryRepository, NewDelivery } from './delivery.repository';
import { DeliveryLogRepository } from '../operate/delivery-log.repository';
import { MERCHANT_CALLBACKS_MIGRATIONS } from '../migrations';

const SCHEMA = 'merchant_callbacks';
const T0 = new Date('2026-11-24T12:00:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const LEASE = 60_000;

function aDelivery(shopId: string, objectId: string, sequence: number) {
  const eventId = randomUUID();
  return {
    eventId,
    urlOverride: null,
    body: toCallbackBody(eventId, T0.toISOString(), {
      type: 'order.status_changed',
      objectId,
      shopId,
      merchantReference: `m-${sequence}`,
      sequence,
      status: 'registered',
      previousStatus: null,
      cost: { amount: '1.00', currency: 'USD' },
    }),
  };
}

/** The delivery queue against PostgreSQL: heads, per-object order, per-shop limits, batched outcomes. */
describe('the delivery queue', () => {
  let db: { url: string; drop(): Promise<void> };
  let ds: DataSource;
  let inbox: Inbox;
  /** One delivery the way the consumer records it (its inbox row in the same statement), in `m`'s transaction. */
  const record = async (m: EntityManager, d: NewDelivery, now: Date): Promise<string> =>
    (await q.insertFresh([d], inbox.cte('ib', [d]), now, m)).get(d.eventId.toLowerCase())!;
  let q: DeliveryRepository;
  let log: DeliveryLogRepository;

  const insert = (shopId: string, objectId: string, sequence: number, now = T0) =>
    ds.transaction((m) => record(m, aDelivery(shopId, objectId, sequence), now));
  const claim = async (now: Date, limit = 100, perShop = 100) => {
    const token = randomUUID();
    const r = await q.claimDue(now, at(now.getTime() - T0.getTime() + LEASE), limit, perShop, token, 'test');
    expect(r.stale).toEqual([]);
    return r.claimed.map((c) => ({ ...c, token }));
  };
  const outcome = (
    d: ClaimedDelivery & { token: string },
    status: DeliveryOutcome['status'],
    nextAttemptAt: Date | null = null,
  ): DeliveryOutcome => ({
    id: d.id,
    claimToken: d.token,
    objectType: d.objectType,
    objectId: d.objectId,
    status,
    nextAttemptAt,
    error: status === 'delivered' ? null : 'HTTP 503',
    attempt: {
      number: d.attempts + 1,
      at: T0,
      url: 'https://merchant.example/cb',
      responseStatus: status === 'delivered' ? 200 : 503,
      latencyMs: 5,
    },
  });
  /** Objects whose head is missing or is not their lowest pending delivery. */
  const wrongHeads = async (): Promise<unknown[]> =>
    ds.query(`
      WITH first AS (
        SELECT DISTINCT ON (object_type, object_id) object_type, object_id, id
          FROM ${SCHEMA}.deliveries WHERE status = 'pending' ORDER BY object_type, object_id, sequence, position
      )
      SELECT f.object_id, f.id, h.delivery_id FROM first f
        FULL JOIN ${SCHEMA}.delivery_heads h ON h.object_type = f.object_type AND h.object_id = f.object_id
       WHERE f.id IS DISTINCT FROM h.delivery_id`);

  beforeAll(async () => {
    db = await createTestDatabase();
    ds = await openServiceDatabase({
      url: db.url,
      schema: SCHEMA,
      entities: [],
      migrations: MERCHANT_CALLBACKS_MIGRATIONS,
    });
    q = new DeliveryRepository(ds, { schema: SCHEMA } as MerchantCallbacksConfig);
    log = new DeliveryLogRepository(ds, { schema: SCHEMA } as MerchantCallbacksConfig, q);
    inbox = new Inbox(ds, SCHEMA, 'merchant-callbacks');
  });

  afterAll(async () => {
    if (ds?.isInitialized) await ds.destroy();
    await db?.drop();
  });

  beforeEach(async () => {
    await ds.query(`TRUNCATE ${SCHEMA}.delivery_attempts, ${SCHEMA}.deliveries, ${SCHEMA}.delivery_heads`);
  });

  it('when two instances claim at the same moment, then together they never take more of a shop than its limit', async () => {
    const shop = randomUUID();
    for (let i = 0; i < 12; i++) await insert(shop, randomUUID(), 1);
    // A second instance: its own repository, so its own connections from the pool.
    const other = new DeliveryRepository(ds, { schema: SCHEMA } as MerchantCallbacksConfig);
    const claimWith = (repo: DeliveryRepository) =>
      repo.claimDue(T0, at(LEASE), 100, 3, randomUUID(), 'test').then((r) => r.claimed.length);
    for (let round = 0; round < 10; round++) {
      await ds.query(`UPDATE ${SCHEMA}.deliveries SET claim_token = NULL, next_attempt_at = $1`, [T0]);
      await ds.query(`UPDATE ${SCHEMA}.delivery_heads SET due_at = $1`, [T0]);
      const [a, b] = await Promise.all([claimWith(q), claimWith(other)]);
      expect({ round, inFlight: a + b }).toEqual({ round, inFlight: 3 });
    }
  });

  it('when an object has several deliveries, then one at a time goes out, in sequence order, and a retry holds the later ones back', async () => {
    const shop = randomUUID();
    const [a, b] = [randomUUID(), randomUUID()];
    await insert(shop, a, 2);
    await insert(shop, a, 1);
    await insert(shop, a, 3);
    await insert(shop, b, 1);

    const first = await claim(T0);
    expect(first.map((d) => [d.objectId, d.sequence])).toEqual(
      expect.arrayContaining([
        [a, 1],
        [b, 1],
      ]),
    );
    expect(first).toHaveLength(2);
    expect(await claim(T0)).toEqual([]);

    const a1 = first.find((d) => d.objectId === a)!;
    const b1 = first.find((d) => d.objectId === b)!;
    const recorded = await q.recordOutcomes([outcome(a1, 'pending', at(5000)), outcome(b1, 'delivered')], T0);
    expect([...recorded].sort()).toEqual([a1.id, b1.id].sort());
    expect(await claim(at(1000))).toEqual([]);

    const again = await claim(at(5000));
    expect(again.map((d) => [d.objectId, d.sequence, d.attempts])).toEqual([[a, 1, 1]]);
    await q.recordOutcomes([outcome(again[0], 'delivered')], at(5000));
    expect((await claim(at(5000))).map((d) => d.sequence)).toEqual([2]);
    expect(await wrongHeads()).toEqual([]);

    const attempts: { attempt: number; response_status: number }[] = await ds.query(
      `SELECT attempt, response_status FROM ${SCHEMA}.delivery_attempts WHERE delivery_id = $1 ORDER BY attempt`,
      [a1.id],
    );
    expect(attempts).toEqual([
      { attempt: 1, response_status: 503 },
      { attempt: 2, response_status: 200 },
    ]);
  });

  it('when a shop has every slot in flight and many deliveries due, then another shop’s delivery is still claimed', async () => {
    const busy = randomUUID();
    const quiet = randomUUID();
    for (let i = 0; i < 300; i++) await insert(busy, randomUUID(), 1, at(i));
    await insert(quiet, randomUUID(), 1, at(1000));

    const firstRound = await claim(at(2000), 4, 2);
    expect(firstRound.map((d) => d.shopId)).toEqual([busy, busy, quiet]);
    expect(await claim(at(2000), 4, 2)).toEqual([]);
    // A freed slot of the busy shop goes to its next oldest delivery.
    await q.recordOutcomes([outcome(firstRound[0], 'delivered')], at(2000));
    const next = await claim(at(2000), 4, 2);
    expect(next.map((d) => d.shopId)).toEqual([busy]);
    expect(next[0].id).not.toBe(firstRound[1].id);
  });

  it('when a shop’s calls have ended but their outcomes are not recorded yet, then their slots go to its next deliveries, never to the same objects', async () => {
    const shop = randomUUID();
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    await insert(shop, a, 1, at(1));
    await insert(shop, a, 2, at(2));
    await insert(shop, b, 1, at(3));
    await insert(shop, c, 1, at(4));
    const claimSettling = async (settling: { id: string; claimToken: string }[]) => {
      const token = randomUUID();
      const r = await q.claimDue(at(2000), at(2000 + LEASE), 100, 2, token, 'test', settling);
      return r.claimed.map((d) => [d.objectId, d.sequence]);
    };

    const first = await claim(at(2000), 100, 2);
    expect(first.map((d) => [d.objectId, d.sequence])).toEqual([
      [a, 1],
      [b, 1],
    ]);
    // Both calls still in flight: the shop's two slots are taken.
    expect(await claimSettling([])).toEqual([]);
    // a's call has ended, its outcome not yet recorded: a slot is free, and it goes to c, not to a's next callback.
    // Under another claim (its lease ran out and it was claimed again) it is in flight again.
    expect(await claimSettling([{ id: first[0].id, claimToken: randomUUID() }])).toEqual([]);
    expect(await claimSettling([{ id: first[0].id, claimToken: first[0].token }])).toEqual([[c, 1]]);
    // Settling ids of rows not claimed (or of another shop) free nothing.
    expect(await claimSettling([{ id: randomUUID(), claimToken: randomUUID() }])).toEqual([]);
  });

  it('when a claim was lost (its lease ran out and another worker took the delivery), then its outcome is not recorded', async () => {
    const obj = randomUUID();
    await insert(randomUUID(), obj, 1);
    const [mine] = await claim(T0);
    const [theirs] = await claim(at(LEASE + 1));
    expect(theirs.id).toBe(mine.id);
    expect(await q.recordOutcomes([outcome(mine, 'delivered')], at(LEASE + 2))).toEqual(new Set());
    expect(await q.recordOutcomes([outcome(theirs, 'delivered')], at(LEASE + 3))).toEqual(new Set([theirs.id]));
    expect(await wrongHeads()).toEqual([]);
  });

  it('when a delivered callback is replayed while a later one waits, then the replayed one goes first', async () => {
    const shop = randomUUID();
    const obj = randomUUID();
    await insert(shop, obj, 1);
    const [one] = await claim(T0);
    await q.recordOutcomes([outcome(one, 'delivered')], T0);
    await insert(shop, obj, 2, at(10));
    await ds.transaction((m) => log.replay(m, { ids: [one.id] }, at(20), 1));
    expect(await wrongHeads()).toEqual([]);
    expect((await claim(at(30))).map((d) => d.sequence)).toEqual([1]);
  });

  it('when an object’s last pending delivery is recorded while its next one is being added, then the next one becomes its head', async () => {
    const shop = randomUUID();
    const obj = randomUUID();
    await insert(shop, obj, 1);
    const [one] = await claim(T0);
    const adding = ds.createQueryRunner();
    await adding.connect();
    await adding.startTransaction();
    try {
      await record(adding.manager, aDelivery(shop, obj, 2), at(1));
      const recording = q.recordOutcomes([outcome(one, 'delivered')], at(2));
      await new Promise((resolve) => setTimeout(resolve, 300));
      await adding.commitTransaction();
      expect(await recording).toEqual(new Set([one.id]));
    } finally {
      if (adding.isTransactionActive) await adding.rollbackTransaction();
      await adding.release();
    }
    expect(await wrongHeads()).toEqual([]);
    expect((await claim(at(3))).map((d) => d.sequence)).toEqual([2]);
  });

  it('when deliveries are added while their objects’ last pending ones are recorded, then every object keeps its head', async () => {
    const shop = randomUUID();
    const objects = Array.from({ length: 40 }, () => randomUUID());
    for (const o of objects) await insert(shop, o, 1);
    const claimed = await claim(T0);
    expect(claimed).toHaveLength(objects.length);
    // Each object's only pending delivery is recorded while its next one is being added.
    await Promise.all([
      ...claimed.map((d) => q.recordOutcomes([outcome(d, 'delivered')], T0)),
      ...objects.map((o) => insert(shop, o, 2)),
    ]);
    expect(await wrongHeads()).toEqual([]);
    expect((await claim(at(1))).map((d) => d.sequence)).toEqual(objects.map(() => 2));
  });

  it('when setting a raced head again fails after the outcome committed, then the outcome still counts as recorded', async () => {
    const shop = randomUUID();
    const obj = randomUUID();
    await insert(shop, obj, 1);
    const [one] = await claim(T0);
    const repair = jest.spyOn(q, 'repairHeads').mockRejectedValueOnce(new Error('Connection terminated unexpectedly'));
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const adding = ds.createQueryRunner();
    await adding.connect();
    await adding.startTransaction();
    try {
      // The consumer's delivery bumps the head's version while the outcome waits for its lock: it races.
      await record(adding.manager, aDelivery(shop, obj, 2), at(1));
      const recording = q.recordOutcomes([outcome(one, 'delivered')], at(2));
      await new Promise((resolve) => setTimeout(resolve, 300));
      await adding.commitTransaction();
      expect(await recording).toEqual(new Set([one.id]));
      expect(repair).toHaveBeenCalledTimes(1);
      expect(logged).toHaveBeenCalledWith('setting 1 queue heads again failed: Connection terminated unexpectedly');
    } finally {
      if (adding.isTransactionActive) await adding.rollbackTransaction();
      await adding.release();
      repair.mockRestore();
      logged.mockRestore();
    }
    // The head still names the delivered one until its lease runs out; then a claim sets it again.
    const token = randomUUID();
    const late = await q.claimDue(at(LEASE + 1), at(2 * LEASE), 100, 100, token, 'test');
    expect(late.stale).toEqual([{ objectType: 'order', objectId: obj }]);
    await q.repairHeads(late.stale);
    expect(await wrongHeads()).toEqual([]);
    expect((await claim(at(LEASE + 2))).map((d) => d.sequence)).toEqual([2]);
  });

  it('when an error text holds a NUL byte, then the outcome is recorded without it', async () => {
    await insert(randomUUID(), randomUUID(), 1);
    const [one] = await claim(T0);
    const failed = { ...outcome(one, 'pending', at(5000)), error: 'socket hang up\u0000 after 3 bytes' };
    expect(await q.recordOutcomes([failed], T0)).toEqual(new Set([one.id]));
    const [row]: { last_error: string }[] = await ds.query(
      `SELECT last_error FROM ${SCHEMA}.deliveries WHERE id = $1`,
      [one.id],
    );
    expect(row.last_error).toBe('socket hang up after 3 bytes');
  });

  it('when a replay sets a head while a consumer adds an earlier delivery of the same object, then the earlier one stays the head', async () => {
    const shop = randomUUID();
    const obj = randomUUID();
    await insert(shop, obj, 2);
    const [two] = await claim(T0);
    await q.recordOutcomes([outcome(two, 'delivered')], T0);
    const adding = ds.createQueryRunner();
    await adding.connect();
    await adding.startTransaction();
    try {
      // The object has no head; the consumer's (sequence 1) is not committed when the replay looks.
      await record(adding.manager, aDelivery(shop, obj, 1), at(1));
      const replaying = ds.transaction((m) => log.replay(m, { ids: [two.id] }, at(2), 1));
      await new Promise((resolve) => setTimeout(resolve, 300));
      await adding.commitTransaction();
      expect(await replaying).toEqual([two.id]);
    } finally {
      if (adding.isTransactionActive) await adding.rollbackTransaction();
      await adding.release();
    }
    expect(await wrongHeads()).toEqual([]);
    expect((await claim(at(3))).map((d) => d.sequence)).toEqual([1]);
  });

  it('when a head is due at infinity, then the next due time ignores it', async () => {
    await insert(randomUUID(), randomUUID(), 1);
    await ds.query(`UPDATE ${SCHEMA}.delivery_heads SET due_at = 'infinity'`);
    expect(await q.nextDueAt()).toBeNull();
    await insert(randomUUID(), randomUUID(), 1, at(7));
    expect(await q.nextDueAt()).toEqual(at(7));
  });
});
