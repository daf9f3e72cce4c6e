import { backoffMs } from './backoff';

describe('backoffMs', () => {
  it.each([
    [0, 100],
    [1, 100],
    [2, 200],
    [3, 400],
    [6, 3200],
    [7, 5000],
    [1000, 5000],
  ])('when %i tries failed with base 100 ms and a 5 s cap, then the wait is %i ms', (failures, ms) => {
    expect(backoffMs(failures, { baseMs: 100, capMs: 5000 })).toBe(ms);
  });

  it('when no cap is given, then the delay keeps doubling and stays finite', () => {
    expect(backoffMs(5, { baseMs: 200 })).toBe(3200);
    expect(Number.isFinite(backoffMs(10_000, { baseMs: 200 }))).toBe(true);
  });

  it.each([
    [0, 500],
    [0.5, 750],
    [1 - 1e-9, 1000],
  ])('when the jitter is equal and the random number is %f, then 1 s becomes %i ms', (random, ms) => {
    expect(backoffMs(1, { baseMs: 1000, jitter: 'equal' }, random)).toBe(ms);
  });

  it('when the jitter is equal, then the cap bounds the delay and half of it is fixed', () => {
    expect(backoffMs(30, { baseMs: 1000, capMs: 3_600_000, jitter: 'equal' }, 0)).toBe(1_800_000);
    expect(backoffMs(30, { baseMs: 1000, capMs: 3_600_000, jitter: 'equal' }, 1 - 1e-9)).toBe(3_600_000);
  });

  it('when the base is tiny, then a jittered delay is still at least 1 ms', () => {
    expect(backoffMs(1, { baseMs: 1, jitter: 'equal' }, 0)).toBe(1);
  });
});
