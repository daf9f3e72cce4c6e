import { AuthAttempt, clientKey, FailedAuthThrottle } from './failed-auth-throttle';
import { ProblemException } from './problem';

function aThrottle(over: Partial<{ burst: number; perMinute: number }> = {}) {
  const lines: string[] = [];
  const throttle = new FailedAuthThrottle(
    { burst: over.burst ?? 3, perMinute: over.perMinute ?? 60, logIntervalMs: 60_000 },
    { warn: (line: string) => lines.push(`WARN ${line}`), log: (line: string) => lines.push(`INFO ${line}`) },
  );
  return { throttle, lines };
}

/** What the guard does: refuse a throttled address before looking at its credential, count a failure. */
function attempt(throttle: FailedAuthThrottle, address: string, nowMs: number, good: boolean): number {
  let tried;
  try {
    tried = throttle.begin(address, nowMs);
  } catch (e) {
    return (e as ProblemException).toDocument().status;
  }
  if (good) {
    tried.succeeded();
    return 200;
  }
  tried.failed();
  return 401;
}

describe('FailedAuthThrottle (failed authentications per client address)', () => {
  it('when an address fails more than its burst, then it is refused with 429 even with a good credential', () => {
    const { throttle } = aThrottle({ burst: 3 });
    expect([0, 0, 0, 0].map((t) => attempt(throttle, '203.0.113.9', t, false))).toEqual([401, 401, 401, 429]);
    expect(attempt(throttle, '203.0.113.9', 0, true)).toBe(429);
  });

  it('when refused, then the 429 is problem+json with Retry-After in whole seconds until one more try', () => {
    const { throttle } = aThrottle({ burst: 1, perMinute: 6 });
    throttle.begin('a', 0).failed();
    let error: ProblemException | undefined;
    try {
      throttle.begin('a', 0);
    } catch (e) {
      error = e as ProblemException;
    }
    expect(error?.toDocument()).toMatchObject({ status: 429, type: '/problems/rate-limited' });
    expect(error?.headers).toEqual({ 'retry-after': '10' });
  });

  it('when time passes, then the address gets its tries back at the configured rate', () => {
    const { throttle } = aThrottle({ burst: 2, perMinute: 60 });
    expect([0, 0, 0].map((t) => attempt(throttle, 'a', t, false))).toEqual([401, 401, 429]);
    expect(attempt(throttle, 'a', 1000, true)).toBe(200);
  });

  it('when one address is throttled, then another address and successful requests are not', () => {
    const { throttle } = aThrottle({ burst: 1 });
    attempt(throttle, 'a', 0, false);
    expect(attempt(throttle, 'a', 0, true)).toBe(429);
    expect(attempt(throttle, 'b', 0, true)).toBe(200);
    expect([0, 0, 0, 0].map((t) => attempt(throttle, 'c', t, true))).toEqual([200, 200, 200, 200]);
  });

  it('when many attempts of one address are checked at once, then only the burst get a try, the rest 429', () => {
    const { throttle } = aThrottle({ burst: 3 });
    const begun: (AuthAttempt | number)[] = [];
    for (let i = 0; i < 10; i++) {
      try {
        begun.push(throttle.begin('a', 0)); // every check still in flight, none has failed yet
      } catch (e) {
        begun.push((e as ProblemException).toDocument().status);
      }
    }
    expect(begun.filter((b) => b === 429)).toHaveLength(7);
    for (const b of begun) if (typeof b !== 'number') b.failed();
    expect(attempt(throttle, 'a', 0, true)).toBe(429);
  });

  it('when checks in flight succeed, then their tries are given back', () => {
    const { throttle } = aThrottle({ burst: 2 });
    const inFlight = [throttle.begin('a', 0), throttle.begin('a', 0)];
    inFlight.forEach((a) => a.succeeded());
    expect([0, 0, 0].map((t) => attempt(throttle, 'a', t, false))).toEqual([401, 401, 429]);
  });

  it('when an address is throttled, then a credential that recently succeeded from it still passes, others do not', () => {
    const { throttle } = aThrottle({ burst: 2 });
    throttle.begin('a', 0, 'good-key').succeeded();
    throttle.begin('a', 0, 'wrong-1').failed();
    throttle.begin('a', 0, 'wrong-2').failed();
    expect(() => throttle.begin('a', 0, 'wrong-3')).toThrow(ProblemException);
    expect(() => throttle.begin('a', 0, 'another-good-key')).toThrow(ProblemException);
    expect(() => throttle.begin('a', 0)).toThrow(ProblemException);
    expect(() => throttle.begin('b', 0, 'good-key').succeeded()).not.toThrow();
    throttle.begin('a', 1000, 'good-key').succeeded();
    // remembered for an hour from its last success
    const hourLater = 1000 + 60 * 60_000;
    throttle.begin('a', hourLater - 1, 'wrong-4').failed();
    throttle.begin('a', hourLater - 1, 'wrong-5').failed();
    expect(() => throttle.begin('a', hourLater - 1, 'good-key')).not.toThrow();
    expect(() => throttle.begin('a', hourLater, 'good-key')).toThrow(ProblemException);
  });

  it('when a remembered credential fails (revoked), then it is forgotten and the failure is charged anyway', () => {
    const { throttle } = aThrottle({ burst: 1, perMinute: 60 });
    throttle.begin('a', 0, 'key').succeeded();
    throttle.begin('a', 0, 'wrong').failed();
    throttle.begin('a', 0, 'key').failed(); // passes while throttled, fails: the bucket goes below zero
    expect(() => throttle.begin('a', 0, 'key')).toThrow(ProblemException);
    expect(() => throttle.begin('a', 1000)).toThrow(ProblemException); // -1 + 1 s at 1/s: still none
    expect(() => throttle.begin('a', 2000)).not.toThrow();
  });

  it('when an address succeeds with many credentials, then only the last 8 are remembered', () => {
    const { throttle } = aThrottle({ burst: 1 });
    for (let i = 0; i < 9; i++) throttle.begin('a', 0, `key-${i}`).succeeded();
    throttle.begin('a', 0, 'wrong').failed();
    expect(() => throttle.begin('a', 0, 'key-0')).toThrow(ProblemException);
    for (let i = 1; i < 9; i++) expect(() => throttle.begin('a', 0, `key-${i}`)).not.toThrow();
  });

  it('when a check cannot answer, then the try is given back and the credential is not remembered', () => {
    const { throttle } = aThrottle({ burst: 1 });
    throttle.begin('a', 0, 'unknown').abandoned();
    throttle.begin('a', 0, 'wrong').failed();
    expect(() => throttle.begin('a', 0, 'unknown')).toThrow(ProblemException);
  });

  it('when 500 attempts fail from one address in an interval, then one line says so, with the counts; a warning only where some were throttled', () => {
    const { throttle, lines } = aThrottle({ burst: 20 });
    for (let i = 0; i < 500; i++) attempt(throttle, '198.51.100.7', i, false);
    attempt(throttle, '192.0.2.1', 0, false);
    expect(lines).toEqual([]);
    throttle.flush();
    expect(lines).toEqual([
      'WARN failed authentication from 198.51.100.7: 20 refused with 401, 480 throttled with 429 in the last 60 s',
      'INFO failed authentication from 192.0.2.1: 1 refused with 401, 0 throttled with 429 in the last 60 s',
    ]);
    throttle.flush();
    expect(lines).toHaveLength(2);
  });
});

describe('the address a failed authentication is counted against', () => {
  it.each([
    ['203.0.113.9', '203.0.113.9'],
    ['::ffff:203.0.113.9', '203.0.113.9'],
    ['2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    [undefined, 'unknown'],
  ])('when the client is %s, then it is counted as %s', (address, key) => {
    expect(clientKey(address)).toBe(key);
  });
});
