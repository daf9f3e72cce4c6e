import { http } from '@payments/testing';
import { aShop, TestShop } from '../support/merchant';
import { opsUrlOf, TEST_OPS_TOKEN, TestStack } from '../support/stack';

const BURST = 5;

/**
 * Guessing credentials: 20,000 wrong operator tokens in about a second all got 401, and every
 * forged provider callback wrote a WARN line. Now an address that keeps failing is answered 429
 * (problem+json, Retry-After) before its credential is looked at, on every listener that checks one.
 */
describe('the failed-authentication throttle per client address', () => {
  let stack: TestStack;
  let shop: TestShop;

  beforeAll(async () => {
    stack = await TestStack.start({
      services: ['gateway', 'callbacks-ingest'],
      extraEnv: { AUTH_FAILURES_BURST: String(BURST), AUTH_FAILURES_PER_MINUTE: '1' },
    });
    shop = await aShop(stack.gateway!.url);
  });

  afterAll(() => stack?.stop());

  /** The test client is on loopback, a trusted proxy: X-Forwarded-For names the client. */
  const from = (address: string, headers: Record<string, string> = {}) => ({
    'x-forwarded-for': address,
    ...headers,
  });

  async function expectThrottledAfterBurst(call: (attempt: number) => Promise<{ status: number; body: any }>) {
    const first = await call(0);
    expect(first.status).toBe(401);
    for (let i = 1; i < BURST; i++) expect(await call(i)).toMatchObject({ status: 401, body: first.body });
    const refused = await call(BURST);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ type: '/problems/rate-limited', status: 429 });
  }

  it('when one address sends wrong API keys past the burst, then it gets 429 with Retry-After, even with a good key, and others do not', async () => {
    const order = (address: string, key: string) =>
      http('POST', `${stack.gateway!.url}/order`, { token: key, headers: from(address), body: {} });
    await expectThrottledAfterBurst((i) => order('203.0.113.10', `sk_wrong_${i}`));

    const withGoodKey = await order('203.0.113.10', shop.apiKey);
    expect(withGoodKey.status).toBe(429);
    expect(withGoodKey.headers.get('content-type')).toContain('application/problem+json');
    expect(Number(withGoodKey.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    expect((await order('203.0.113.11', shop.apiKey)).status).toBe(400); // authenticated, then validated
    expect((await order('203.0.113.12', 'sk_wrong')).status).toBe(401);
  });

  it('when a bad client behind a shared address gets it throttled, then a key that worked from there still works', async () => {
    const order = (key: string) =>
      http('POST', `${stack.gateway!.url}/order`, { token: key, headers: from('203.0.113.14'), body: {} });
    expect((await order(shop.apiKey)).status).toBe(400); // authenticated, then validated
    await expectThrottledAfterBurst((i) => order(`sk_wrong_shared_${i}`));
    expect((await order(shop.apiKey)).status).toBe(400);
  });

  it('when one address sends many wrong API keys at once, then at most the burst get 401, the rest 429', async () => {
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        http('POST', `${stack.gateway!.url}/order`, {
          token: `sk_wrong_burst_${i}`,
          headers: from('203.0.113.13'),
          body: {},
        }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(BURST);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30 - BURST);
  });

  it('when one address sends wrong operator tokens past the burst, then it gets 429', async () => {
    await expectThrottledAfterBurst((i) =>
      http('GET', `${opsUrlOf(stack.gateway!.url)}/ops/v1/shops/${shop.shopId}/api-keys`, {
        token: `wrong-${i}`,
        headers: from('203.0.113.20'),
      }),
    );
    const other = await http('GET', `${opsUrlOf(stack.gateway!.url)}/ops/v1/shops/${shop.shopId}/api-keys`, {
      token: TEST_OPS_TOKEN,
      headers: from('203.0.113.21'),
    });
    expect(other.status).toBe(200);
  });

  it('when one address sends forged provider callbacks past the burst, then it gets 429', async () => {
    await expectThrottledAfterBurst((i) =>
      http('POST', `${stack.ingest!.url}/callbacks/sandbox`, {
        rawBody: JSON.stringify({ eventId: `forged-${i}` }),
        headers: from('2001:db8:30::1', { 'x-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` }),
      }),
    );
    // another host of the same IPv6 /64 is the same client
    const sameNetwork = await http('POST', `${stack.ingest!.url}/callbacks/sandbox`, {
      rawBody: '{}',
      headers: from('2001:db8:30::2'),
    });
    expect(sameNetwork.status).toBe(429);
  });

  it('when a client outside the trusted proxies sets X-Forwarded-For, then it is not believed', async () => {
    // The request comes from 127.0.0.1 (trusted) but names an untrusted proxy first: the client is
    // the address the untrusted hop claimed to forward for, not any address further left.
    const answers = [];
    for (let i = 0; i <= BURST; i++)
      answers.push(
        (
          await http('GET', `${opsUrlOf(stack.gateway!.url)}/ops/v1/shops/${shop.shopId}/api-keys`, {
            token: 'wrong',
            headers: { 'x-forwarded-for': `10.9.9.${i}, 198.51.100.40` },
          })
        ).status,
      );
    expect(answers).toEqual([...Array(BURST).fill(401), 429]);
  });
});
