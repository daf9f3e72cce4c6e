import { Logger } from '@nestjs/common';
import { QueueWorker } from './queue-worker';
import type { WorkQueue } from './work-queue';

interface Item {
  id: string;
  call: Deferred;
  record: Deferred;
}

class Deferred {
  resolve!: () => void;
  readonly promise = new Promise<void>((r) => (this.resolve = r));
}

const tick = () => new Promise((r) => setImmediate(r));

/** Slots, released slots and the bound on what waits for its record, with the claim faked. */
describe('the queue worker', () => {
  beforeAll(() => Logger.overrideLogger(false));
  afterAll(() => Logger.overrideLogger(['log', 'warn', 'error']));

  function aWorker(concurrency: number, maxUnrecorded?: number, releases = true) {
    const asked: number[] = [];
    const started: Item[] = [];
    let next = 0;
    const worker = new QueueWorker<Item>({
      name: 'test',
      databaseUrl: 'postgres://unused',
      queue: { t: { channel: 'test_queue_worker' }, nextDueAt: async () => null } as unknown as WorkQueue<unknown>,
      concurrency,
      maxUnrecorded,
      workTimeoutMs: 1000,
      instanceId: 'test',
      clock: { now: () => new Date() },
      claim: async (r) => {
        asked.push(r.limit);
        return Array.from({ length: r.limit }, () => ({
          id: `item-${next++}`,
          call: new Deferred(),
          record: new Deferred(),
        }));
      },
      idOf: (item) => item.id,
      work: async (item, _token, release) => {
        started.push(item);
        await item.call.promise;
        if (releases) release();
        await item.record.promise;
      },
      pollIntervalMs: 1000,
      minIdleMs: 100,
      logger: new Logger('test'),
    });
    return { worker, asked, started };
  }

  it('when items release their slots after the outside call, then the next ones are claimed while the first are recorded, up to the bound', async () => {
    const { worker, asked, started } = aWorker(2, 4);
    const first = worker.workDue();
    await tick();
    expect(asked).toEqual([2]);
    // Both calls still out: no slot is free.
    void worker.workDue();
    await tick();
    expect(asked).toEqual([2]);
    for (const item of started.slice(0, 2)) item.call.resolve();
    await tick();
    const second = worker.workDue();
    await tick();
    expect(asked).toEqual([2, 2]);
    // Four held (two recording, two calling): the bound leaves nothing to claim, released or not.
    for (const item of started.slice(2, 4)) item.call.resolve();
    await tick();
    void worker.workDue();
    await tick();
    expect(asked).toEqual([2, 2]);
    // A record ends: one place again.
    started[0].record.resolve();
    await tick();
    await tick();
    const third = worker.workDue();
    await tick();
    expect(asked).toEqual([2, 2, 1]);
    for (const item of started) {
      item.call.resolve();
      item.record.resolve();
    }
    await Promise.all([first, second, third]);
  });

  it('when no bound above the concurrency is given, then a released slot stays held until the work ends', async () => {
    const { worker, asked, started } = aWorker(2);
    const first = worker.workDue();
    await tick();
    for (const item of started) item.call.resolve();
    await tick();
    void worker.workDue();
    await tick();
    expect(asked).toEqual([2]);
    for (const item of started) item.record.resolve();
    await first;
    const again = worker.workDue();
    await tick();
    expect(asked).toEqual([2, 2]);
    for (const item of started) {
      item.call.resolve();
      item.record.resolve();
    }
    await again;
  });
});
