import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { ProblemException } from '@payments/platform';
import { ShopPrincipal } from './merchant-auth.guard';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The `:shopId` path parameter, allowed only when it is the shop of the API key. Any other shop id
 * (another shop's or an unknown one) is the same 403: the answer never tells whether such a shop
 * exists. A value that cannot be a shop id at all is a 400 naming `shopId` — it reveals nothing and
 * tells the merchant what to fix. Use on routes behind MerchantAuthGuard:
 * `get(@OwnShopId() shopId: string)`.
 */
export const OwnShopId = createParamDecorator((_: unknown, ctx: ExecutionContext): string => {
  const request = ctx.switchToHttp().getRequest<{ shop?: ShopPrincipal; params?: Record<string, string> }>();
  if (!request.shop) throw new Error('OwnShopId used on a route without MerchantAuthGuard');
  const shopId = request.params?.shopId ?? '';
  if (!UUID.test(shopId))
    throw new ProblemException('validation', 'shopId: must be a shop id (UUID)', [
      { path: 'shopId', message: 'must be a shop id (UUID)' },
    ]);
  if (shopId.toLowerCase() !== request.shop.shopId)
    throw new ProblemException('forbidden', 'This shop id is not the shop of your API key.');
  return request.shop.shopId;
});
