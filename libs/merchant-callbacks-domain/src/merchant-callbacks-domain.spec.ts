import {
  callbackUrlProblem,
  isDelivered,
  isNonPublicAddress,
  nextRetry,
  RetryPolicy,
  toCallbackBody,
  DEFAULT_RETRY_POLICY,
} from './index';

const T0 = new Date('2026-11-21T00:00:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const policy: RetryPolicy = { baseMs: 1000, capMs: 3_600_000, windowMs: 25 * 3_600_000 };

describe('retry policy', () => {
  it.each([
    // attempt, random, delay
    [1, 0, 500],
    [1, 0.999999, 1000],
    [2, 0, 1000],
    [3, 1 - 1e-9, 4000],
    [13, 0, 1_800_000], // 2^12 s = 4096 s is past the cap: half of one hour at the least
    [30, 0.5, 2_700_000],
  ])('when attempt %i failed (random %f), then the next is %i ms later', (attempt, random, delay) => {
    const d = nextRetry(policy, attempt, T0, T0, random);
    expect(d).toEqual({ kind: 'retry', at: at(delay), delayMs: delay });
  });

  it.each([
    ['just inside the window', 24 * 3_600_000, 'retry'],
    ['when the next try would fall past 25 hours', 25 * 3_600_000 - 1000, 'give_up'],
    ['long after the window', 26 * 3_600_000, 'give_up'],
  ])('%s, then %s', (_what, elapsed, kind) => {
    expect(nextRetry(policy, 40, T0, at(elapsed), 0.99).kind).toBe(kind);
  });

  it('when the defaults are used, then a dead endpoint is tried for at least 24 hours', () => {
    let now = T0;
    let attempt = 1;
    for (;;) {
      const d = nextRetry(DEFAULT_RETRY_POLICY, attempt, T0, now, 1 - 1e-9);
      if (d.kind === 'give_up') break;
      now = d.at;
      attempt += 1;
    }
    expect(now.getTime() - T0.getTime()).toBeGreaterThanOrEqual(24 * 3_600_000);
    expect(attempt).toBeGreaterThan(20);
  });

  it.each([
    [{ kind: 'response', status: 200 }, true],
    [{ kind: 'response', status: 204 }, true],
    [{ kind: 'response', status: 301 }, false],
    [{ kind: 'response', status: 404 }, false],
    [{ kind: 'response', status: 410 }, false],
    [{ kind: 'response', status: 429 }, false],
    [{ kind: 'response', status: 503 }, false],
    [{ kind: 'error', reason: 'timeout' }, false],
  ] as const)('when an attempt ends with %j, then delivered is %s', (result, delivered) => {
    expect(isDelivered(result)).toBe(delivered);
  });
});

describe('callback URL policy', () => {
  it.each([
    ['https://merchant.example.com/cb', false, undefined],
    ['https://203.0.114.7/cb', false, undefined],
    ['http://merchant.example.com/cb', false, 'must be an https URL'],
    ['ftp://merchant.example.com/cb', false, 'must be an https URL'],
    ['not a url', false, 'must be an absolute URL'],
    ['https://user:pw@merchant.example.com/cb', false, 'must not contain credentials'],
    ['https://localhost/cb', false, 'must not point at a local host name'],
    ['https://intranet/cb', false, 'must not point at a local host name'],
    ['https://127.0.0.1/cb', false, 'must not point at a private, loopback, link-local or unique-local address'],
    ['https://10.1.2.3/cb', false, 'must not point at a private, loopback, link-local or unique-local address'],
    ['https://172.20.0.1/cb', false, 'must not point at a private, loopback, link-local or unique-local address'],
    ['https://192.168.1.1/cb', false, 'must not point at a private, loopback, link-local or unique-local address'],
    [
      'https://169.254.169.254/latest/meta-data',
      false,
      'must not point at a private, loopback, link-local or unique-local address',
    ],
    ['https://[::1]/cb', false, 'must not point at a private, loopback, link-local or unique-local address'],
    ['https://[fd00::1]/cb', false, 'must not point at a private, loopback, link-local or unique-local address'],
    ['https://[fe80::1]/cb', false, 'must not point at a private, loopback, link-local or unique-local address'],
    [
      'https://[::ffff:10.0.0.1]/cb',
      false,
      'must not point at a private, loopback, link-local or unique-local address',
    ],
    ['https://[2a00:1450::1]/cb', false, undefined],
    ['https://[2002:a00:1::1]/cb', false, 'must not point at a private, loopback, link-local or unique-local address'],
    [
      'https://[2001:0:4136:e378::1]/cb',
      false,
      'must not point at a private, loopback, link-local or unique-local address',
    ],
    ['http://127.0.0.1:8080/cb', true, undefined],
    ['http://localhost/cb', true, undefined],
    ['ftp://127.0.0.1/cb', true, 'must be an http or https URL'],
  ])('when the URL is %s (local development %s), then the problem is %s', (url, allowInsecure, problem) => {
    expect(callbackUrlProblem(url, { allowInsecure })).toBe(problem);
  });

  it.each([
    ['8.8.8.8', false],
    ['100.64.1.1', true],
    ['0.0.0.0', true],
    ['224.0.0.1', true],
    ['2001:db8::1', true],
    ['2606:4700::1111', false],
    ['::', true],
    ['bogus', true],
    ['2002:c0a8:101::1', true], // 6to4 of 192.168.1.1
    ['2002:808:808::1', true], // 6to4 even of a public IPv4: the relay decides where it lands
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', true], // Teredo
    ['fec0::1', true],
    ['64:ff9b::a00:1', true], // NAT64 of 10.0.0.1
    ['::ffff:8.8.8.8', false],
    ['::ffff:192.168.0.1', true],
    ['198.18.0.1', true],
    ['fe80::1%eth0', true],
    ['[::1]', true],
    // IPv4-compatible IPv6 (::/96, deprecated): ipaddr.js calls it unicast; it must not pass
    ['::7f00:1', true], // ::127.0.0.1
    ['::127.0.0.1', true],
    ['::a00:1', true], // ::10.0.0.1
    ['::808:808', true], // ::8.8.8.8: the whole range is refused, public IPv4 inside or not
    ['::1:0:0:1', true], // not in ::/96, but outside global unicast 2000::/3 too
    // IPv4-mapped (::ffff:0:0/96), in any spelling: checked as the IPv4 inside
    ['::ffff:7f00:1', true],
    ['::ffff:127.0.0.1', true],
    ['0:0:0:0:0:ffff:a00:1', true],
    ['[::ffff:808:808]', false],
  ])('when the resolved address is %s, then non-public is %s', (ip, blocked) => {
    expect(isNonPublicAddress(ip)).toBe(blocked);
  });
});

describe('callback body', () => {
  const change = {
    type: 'order.status_changed' as const,
    objectId: 'o-1',
    shopId: 's-1',
    merchantReference: 'm-1',
    sequence: 2,
    status: 'completed',
    previousStatus: 'in_progress',
    cost: { amount: '10.00', currency: 'USD' },
  };

  it.each([
    [
      'a catalogue code',
      { statusCode: '0-01-00', statusDescription: 'producer text' },
      '0-01-00',
      'Operation completed successfully.',
    ],
    [
      'a code the catalogue does not know',
      { statusCode: '9-99-99', statusDescription: 'producer text' },
      '9-99-99',
      'producer text',
    ],
    ['no code', {}, null, null],
  ])(
    'when the event carries %s, then the body carries the catalogue description where there is one',
    (_what, extra, code, description) => {
      const body = toCallbackBody('e-1', '2026-11-21T00:00:00.000Z', { ...change, ...extra });
      expect(body).toMatchObject({
        eventId: 'e-1',
        objectType: 'order',
        merchantOrderId: 'm-1',
        sequence: 2,
        statusCode: code,
        statusDescription: description,
      });
    },
  );

  it.each([
    ['payout.status_changed', 'payout', 'merchantPayoutId'],
    ['p2p.status_changed', 'p2p', 'merchantP2pId'],
  ] as const)('when the event is %s, then the object type is %s and the reference is %s', (type, objectType, ref) => {
    const body = toCallbackBody('e-1', 'x', {
      ...change,
      type,
      cost: { amount: '1', currency: 'USDT', tokenStandard: 'TRC20' },
    });
    expect(body.objectType).toBe(objectType);
    expect(body).toHaveProperty(ref, 'm-1');
    expect(body).not.toHaveProperty('merchantOrderId');
    expect(body.cost).toEqual({ amount: '1', currency: 'USDT', tokenStandard: 'TRC20' });
  });
});
