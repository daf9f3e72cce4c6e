import { Body, Controller, Get, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { isUUID } from 'class-validator';
import { MethodDirection, MethodListView, MethodQueryTypes, PayoutFieldsQuery, PayoutFieldsView, Topics } from '@payments/contracts';
import { KafkaRequestClient } from '@payments/messaging';
import { canonicalCurrency } from '@payments/money';
import { ProblemException } from '@payments/platform';
import { CurrentShop, MerchantAuthGuard, ShopPrincipal } from '../auth/merchant-auth.guard';
import { ask } from '../orders/domain-requests';
import { REQUEST_CLIENT } from '../tokens';
import { MethodListDto, PayoutFieldsRequestDto, PayoutFieldsResponseDto } from './methods.dto';

/**
 * A malformed shopId is a 400 naming it; another shop's id is a 403 (ARCHITECTURE.md 3): a shop's
 * own id is no secret to its key holder, so there is nothing to hide behind a 404.
 */
export function ownShopId(shop: ShopPrincipal, shopId: string): string {
  if (!isUUID(shopId)) throw new ProblemException('validation', 'shopId: must be a shop id (UUID)', [{ path: 'shopId', message: 'must be a shop id (UUID)' }]);
  if (shopId.toLowerCase() !== shop.shopId) throw new ProblemException('forbidden', "The API key does not belong to this shop; use your own shop's id.");
  return shop.shopId;
}

@ApiTags('methods')
@ApiBearerAuth()
@UseGuards(MerchantAuthGuard)
@Controller()
export class MerchantMethodsController {
  constructor(@Inject(REQUEST_CLIENT) private readonly client: KafkaRequestClient) {}

  @Get(['shops/:shopId/payment-methods', 'api/v1/shops/:shopId/payment-methods'])
  @ApiOperation({ summary: 'Retrieve Payment Methods: the enabled payment methods of the shop' })
  @ApiParam({ name: 'shopId', format: 'uuid', description: "The key's own shop." })
  @ApiOkResponse({ type: MethodListDto })
  paymentMethods(@CurrentShop() shop: ShopPrincipal, @Param('shopId') shopId: string): Promise<MethodListView> {
    return this.list('payment', ownShopId(shop, shopId));
  }

  @Get(['payouts/payout-methods/:shopId', 'api/v1/payouts/payout-methods/:shopId'])
  @ApiOperation({ summary: 'Retrieve Payout Methods: the enabled payout methods of the shop' })
  @ApiParam({ name: 'shopId', format: 'uuid', description: "The key's own shop." })
  @ApiOkResponse({ type: MethodListDto })
  payoutMethods(@CurrentShop() shop: ShopPrincipal, @Param('shopId') shopId: string): Promise<MethodListView> {
    return this.list('payout', ownShopId(shop, shopId));
  }

  @Post(['payouts/fields', 'api/v1/payouts/fields'])
  @HttpCode(200)
  @ApiOperation({ summary: 'Retrieve Required Payout Fields: the payee fields a payout with these settings needs, with their formats' })
  @ApiOkResponse({ type: PayoutFieldsResponseDto })
  fields(@CurrentShop() shop: ShopPrincipal, @Body() body: PayoutFieldsRequestDto): Promise<PayoutFieldsView> {
    const s = body.payoutSettings;
    const query: PayoutFieldsQuery = {
      shopId: shop.shopId,
      method: s.method,
      currency: canonicalCurrency(s.currency),
      ...(s.tokenStandard ? { tokenStandard: s.tokenStandard } : {}),
      ...(s.walletType ? { walletType: s.walletType } : {}),
    };
    return ask<PayoutFieldsView>(this.client, Topics.methodsQueries, shop.shopId, MethodQueryTypes.payoutFields, query);
  }

  private list(direction: MethodDirection, shopId: string): Promise<MethodListView> {
    const type = direction === 'payment' ? MethodQueryTypes.paymentList : MethodQueryTypes.payoutList;
    return ask<MethodListView>(this.client, Topics.methodsQueries, shopId, type, { shopId });
  }
}
