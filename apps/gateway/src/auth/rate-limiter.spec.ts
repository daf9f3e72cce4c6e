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
