import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { ProblemException } from '@payments/platform';
import { ShopPrincipal } from './merchant-auth.guard';

/**
 * The `:shopId` path parameter, allowed only when it is the shop of the API key. Any other value
 * (another shop, an unknown id, not an id at all) is the same 403: the answer never tells whether
 * such a shop exists. Use on routes behind MerchantAuthGuard:
 * `get(@OwnShopId() shopId: string)`.
 */
export const OwnShopId = createParamDecorator((_: unknown, ctx: ExecutionContext): string => {
  const request = ctx.switchToHttp().getRequest<{ shop?: ShopPrincipal; params?: Record<string, string> }>();
  if (!request.shop) throw new Error('OwnShopId used on a route without MerchantAuthGuard');
  const shopId = request.params?.shopId;
  if (shopId !== request.shop.shopId) throw new ProblemException('forbidden', 'This shop id is not the shop of your API key.');
  return shopId;
});
