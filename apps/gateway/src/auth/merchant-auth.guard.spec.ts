import { ExecutionContext } from '@nestjs/common';
import { FailedAuthThrottle, ProblemException, RateLimiter } from '@payments/platform';
import { ApiKeyRepository } from '@payments/merchant-admin';
import { hashApiKey } from '@payments/merchant-admin';
import { MerchantAuthGuard } from './merchant-auth.guard';

const BURST = 5;
const GOOD_KEY = 'sk_good_key_of_the_shop';
const OTHER_GOOD_KEY = 'sk_good_key_of_another_shop';

/** A key store that answers after a delay, like the database: the requests of a burst overlap. */
function aGuard() {
  const looked: string[] = [];
  const keys = {
    async findActive(hash: string) {
      looked.push(hash);
      await new Promise((resolve) => setTimeout(resolve, 10));
      if (hash === hashApiKey(GOOD_KEY)) return { id: 'key-1', shopId: 'shop-1', companyId: 'company-1' };
      if (hash === hashApiKey(OTHER_GOOD_KEY)) return { id: 'key-2', shopId: 'shop-2', companyId: 'company-2' };
      return undefined;
    },
    touch() {},
  } as unknown as ApiKeyRepository;
  const throttle = new FailedAuthThrottle(
    { burst: BURST, perMinute: 1, logIntervalMs: 60_000 },
    { warn() {}, log() {} },
  );
  const guard = new MerchantAuthGuard(keys, new RateLimiter(1000, 1000), throttle);
  return { guard, looked };
}

async function status(guard: MerchantAuthGuard, address: string, key: string): Promise<number> {
  const request = { headers: { authorization: `Bearer ${key}` }, ip: address };
  const context = {
    switchToHttp: () => ({ getRequest: () => request, getResponse: () => ({ header() {} }) }),
  } as unknown as ExecutionContext;
  try {
    await guard.canActivate(context);
    return 200;
  } catch (e) {
    return (e as ProblemException).toDocument().status;
  }
}

describe('MerchantAuthGuard and the failed-authentication throttle', () => {
  it('when 50 wrong keys arrive at once from one address, then at most the burst reach the key check, the rest get 429', async () => {
    const { guard, looked } = aGuard();
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => status(guard, '203.0.113.9', `sk_wrong_key_${i}`)),
    );
    expect(looked).toHaveLength(BURST);
    expect(answers.filter((s) => s === 401)).toHaveLength(BURST);
    expect(answers.filter((s) => s === 429)).toHaveLength(50 - BURST);
  });

  it('when good keys arrive from an address, then they never use up its failed tries', async () => {
    const { guard } = aGuard();
    for (let i = 0; i < 3 * BURST; i++) expect(await status(guard, '203.0.113.9', GOOD_KEY)).toBe(200);
    const wrong = [];
    for (let i = 0; i <= BURST; i++) wrong.push(await status(guard, '203.0.113.9', `sk_wrong_key_${i}`));
    expect(wrong).toEqual([...Array(BURST).fill(401), 429]);
  });

  it('when a bad client behind a shared address gets it throttled, then a key that recently worked from there still works', async () => {
    const { guard } = aGuard();
    expect(await status(guard, '203.0.113.9', GOOD_KEY)).toBe(200);
    for (let i = 0; i < BURST; i++) expect(await status(guard, '203.0.113.9', `sk_wrong_key_${i}`)).toBe(401);
    expect(await status(guard, '203.0.113.9', `sk_wrong_key_again`)).toBe(429);

    expect(await status(guard, '203.0.113.9', GOOD_KEY)).toBe(200);
    // a good key not seen from this address is refused like a guess: the 429 tells no guess that worked
    expect(await status(guard, '203.0.113.9', OTHER_GOOD_KEY)).toBe(429);
  });
});
