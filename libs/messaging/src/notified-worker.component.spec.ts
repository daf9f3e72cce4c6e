import { Logger } from '@nestjs/common';
import { createTestDatabase, eventually } from '@payments/testing';
import { NotifiedWorker } from './notified-worker';

describe('NotifiedWorker against PostgreSQL', () => {
  let db: { url: string; drop(): Promise<void> };
  let worker: NotifiedWorker | undefined;

  beforeAll(async () => {
    db = await createTestDatabase();
  });

  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
  });

  afterAll(async () => {
    await db?.drop();
  });

  it('when work is queued while the idle delay is being worked out, then the next round runs at once, not after the delay', async () => {
    let rounds = 0;
    let delayAsked!: () => void;
    const asked = new Promise<void>((r) => (delayAsked = r));
    let answerDelay!: (ms: number) => void;
    worker = new NotifiedWorker({
      name: 'notified-worker.spec',
      databaseUrl: db.url,
      channel: 'notified_worker_spec',
      round: () => {
        rounds++;
        return Promise.resolve(false);
      },
      // The first idle delay is slow to work out (a query on a busy database) and long (the poll).
      idleDelayMs: () => {
        if (rounds > 1) return 60_000;
        delayAsked();
        return new Promise<number>((r) => (answerDelay = r));
      },
      logger: new Logger('notified-worker.spec'),
    });
    await worker.start();
    await asked;
    worker.poke(); // a slot freed, or a transaction queued work, meanwhile
    answerDelay(60_000);
    await eventually(async () => (rounds >= 2 ? true : undefined), 2000, 'a second round at once');
  });
});
