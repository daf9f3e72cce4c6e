import { RateLimiter } from './rate-limiter';

describe('RateLimiter (token bucket per key)', () => {
  it.each([
    // perSecond, burst, request times (ms), expected allowed per request
    [1, 2, [0, 0, 0], [true, true, false]],
    [1, 2, [0, 0, 999, 1000], [true, true, false, true]],
    [10, 1, [0, 50, 100, 150], [true, false, true, false]],
    [2000, 4000, Array.from({ length: 4001 }, () => 0), [...Array.from({ length: 4000 }, () => true), false]],
  ])(
    'when %d/s with burst %d sees requests at %j, then they are allowed as %j',
    (perSecond, burst, times, expected) => {
      const limiter = new RateLimiter(perSecond, burst);
      expect(times.map((t) => limiter.take('k', t).allowed)).toEqual(expected);
    },
  );

  it('when a key is refused, then Retry-After is the whole seconds until one token is back, and remaining is 0', () => {
    const limiter = new RateLimiter(0.5, 1);
    expect(limiter.take('k', 0)).toEqual({ allowed: true, limit: 1, remaining: 0, retryAfterSeconds: 0 });
    expect(limiter.take('k', 500)).toEqual({ allowed: false, limit: 1, remaining: 0, retryAfterSeconds: 2 });
  });

  it('when one key is exhausted, then another key is not limited', () => {
    const limiter = new RateLimiter(1, 1);
    expect(limiter.take('a', 0).allowed).toBe(true);
    expect(limiter.take('a', 0).allowed).toBe(false);
    expect(limiter.take('b', 0).allowed).toBe(true);
  });
});

describe('RateLimiter memory under many keys (failed authentications from many addresses)', () => {
  it('when 20,000 keys were used and have refilled, then a later request drops their buckets', () => {
    const limiter = new RateLimiter(1, 2);
    for (let i = 0; i < 20_000; i++) limiter.take(`a${i}`, 0);
    expect(limiter.size).toBe(20_000);
    limiter.take('late', 5_000);
    expect(limiter.size).toBe(1);
  });

  it('when new keys keep coming within one second, then the buckets are scanned at most once in it', () => {
    const limiter = new RateLimiter(1, 2);
    for (let i = 0; i < 10_000; i++) limiter.take(`a${i}`, 0);
    const scans = jest.spyOn(limiter as unknown as { sweep: (now: number) => void }, 'sweep');
    for (let i = 0; i < 5_000; i++) limiter.take(`b${i}`, 500);
    expect(scans.mock.calls.length).toBeLessThanOrEqual(1);
  });
});

describe('RateLimiter.giveBack (a reservation not needed)', () => {
  it('when a taken request is given back, then it can be taken again, never above the burst', () => {
    const limiter = new RateLimiter(1, 2);
    limiter.take('k', 0);
    limiter.take('k', 0);
    limiter.giveBack('k', 0);
    limiter.giveBack('k', 0);
    limiter.giveBack('k', 0);
    expect([0, 0, 0].map((t) => limiter.take('k', t).allowed)).toEqual([true, true, false]);
  });
});
