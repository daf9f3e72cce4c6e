import { CanActivate, createParamDecorator, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { FAILED_AUTH_THROTTLE, FailedAuthThrottle, ProblemException, RateLimiter } from '@payments/platform';
import { RATE_LIMITER } from '../tokens';
import { bearerToken, hashApiKey } from '@payments/merchant-admin';
import { ApiKeyRepository, ShopRequestSettings } from '@payments/merchant-admin';

export interface ShopPrincipal {
  shopId: string;
  companyId: string;
  apiKeyId: string;
  /**
   * The shop's settings order creation reads, from the key's own query (read fresh on every
   * request, as the key is). Absent only on principals made by hand (tests).
   */
  settings?: ShopRequestSettings;
}

const UNAUTHORIZED = 'A valid shop API key is required: Authorization: Bearer <key>.';

interface MerchantRequest {
  headers: Record<string, string | string[] | undefined>;
  ip?: string;
  shop?: ShopPrincipal;
}

interface HeaderReply {
  header(name: string, value: string): unknown;
}

/**
 * Every merchant route runs as the shop of its key. A missing, malformed, unknown, revoked or
 * expired key gets the same 401, so the answer reveals nothing about which it was. An address that
 * keeps failing is answered 429 before its key is looked at (FailedAuthThrottle). Then the key's
 * rate limit: checked here, once the key is known, so every merchant route has it.
 */
@Injectable()
export class MerchantAuthGuard implements CanActivate {
  constructor(
    private readonly keys: ApiKeyRepository,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
    @Inject(FAILED_AUTH_THROTTLE) private readonly throttle: FailedAuthThrottle,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<MerchantRequest>();
    const now = Date.now();
    const token = bearerToken(request.headers.authorization);
    const hash = token ? hashApiKey(token) : undefined;
    // Reserves one of the address's tries before the lookup, so concurrent guesses cannot all pass;
    // a key that recently worked from this address passes even while the address is throttled.
    const attempt = this.throttle.begin(request.ip, now, hash);
    let key;
    try {
      key = hash ? await this.keys.findActive(hash) : undefined;
    } catch (e) {
      attempt.abandoned(); // the lookup failed, not the credential: the try is given back
      throw e;
    }
    if (!key) {
      attempt.failed();
      throw new ProblemException('unauthorized', UNAUTHORIZED, undefined, {}, { 'www-authenticate': 'Bearer' });
    }
    attempt.succeeded();
    const rate = this.limiter.take(key.id, now);
    const rateHeaders = { 'ratelimit-limit': String(rate.limit), 'ratelimit-remaining': String(rate.remaining) };
    if (!rate.allowed) {
      throw new ProblemException(
        'rateLimited',
        `Too many requests with this API key; retry in ${rate.retryAfterSeconds} s.`,
        undefined,
        {},
        {
          'retry-after': String(rate.retryAfterSeconds),
          ...rateHeaders,
        },
      );
    }
    const reply = context.switchToHttp().getResponse<HeaderReply>();
    for (const [name, value] of Object.entries(rateHeaders)) reply.header(name, value);
    this.keys.touch(key.id, now);
    request.shop = { shopId: key.shopId, companyId: key.companyId, apiKeyId: key.id, settings: key.settings };
    return true;
  }
}

export const CurrentShop = createParamDecorator((_: unknown, ctx: ExecutionContext): ShopPrincipal => {
  const shop = ctx.switchToHttp().getRequest<{ shop?: ShopPrincipal }>().shop;
  if (!shop) throw new Error('CurrentShop used on a route without MerchantAuthGuard');
  return shop;
});
