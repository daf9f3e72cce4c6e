import { IntervalJob } from './interval-job';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('IntervalJob (background work on an interval, one run at a time)', () => {
  it('when a run outlasts the interval, then the ticks meanwhile are skipped and stop waits for it', async () => {
    let runs = 0;
    let inFlight = 0;
    let most = 0;
    const job = new IntervalJob(
      'work',
      10,
      async () => {
        runs += 1;
        inFlight += 1;
        most = Math.max(most, inFlight);
        await sleep(60);
        inFlight -= 1;
      },
      () => undefined,
    );
    job.start();
    await sleep(100);
    await job.stop();
    expect(most).toBe(1);
    expect(runs).toBeGreaterThanOrEqual(1);
    expect(runs).toBeLessThanOrEqual(2);
    expect(inFlight).toBe(0);
  });

  it('when a run fails, then it is logged naming the job and the next tick runs again', async () => {
    const lines: string[] = [];
    let runs = 0;
    const job = new IntervalJob(
      'purge',
      10,
      async () => {
        runs += 1;
        if (runs === 1) throw new Error('database gone');
      },
      (line) => lines.push(line),
    );
    job.start();
    await sleep(80);
    await job.stop();
    expect(lines[0]).toBe('purge failed, next run in 10 ms: database gone');
    expect(runs).toBeGreaterThanOrEqual(2);
  });

  it('when the interval is 0, then nothing runs', async () => {
    let runs = 0;
    const job = new IntervalJob(
      'off',
      0,
      async () => void (runs += 1),
      () => undefined,
    );
    job.start();
    await sleep(30);
    await job.stop();
    expect(runs).toBe(0);
  });
});
