import { Body, Controller, Get, HttpCode, Inject, Post, UseGuards } from '@nestjs/common';
import { ApiExtraModels, ApiParam, ApiTags, getSchemaPath } from '@nestjs/swagger';
import {
  MethodDirection,
  MethodListView,
  MethodQueryTypes,
  PayoutFieldsQuery,
  PayoutFieldsView,
  Topics,
} from '@payments/contracts';
import { KafkaRequestClient } from '@payments/messaging';
import { canonicalCurrency } from '@payments/money';
import { CurrentShop, MerchantAuthGuard, ShopPrincipal } from '../auth/merchant-auth.guard';
import { OwnShopId } from '../auth/own-shop-id.decorator';
import { MerchantEndpoint } from '@payments/merchant-admin';
import { ask } from '@payments/merchant-admin';
import { REQUEST_CLIENT } from '../tokens';
import { MethodListDto, PayoutFieldsRequestDto, PayoutFieldsResponseDto } from '@payments/merchant-admin';
import {
  paymentMethodsExample,
  payoutFieldsExample,
  payoutFieldsRequestExample,
  payoutMethodsExample,
} from '@payments/merchant-admin';

// The DTOs carry descriptions, enums and optional members that a schema read off one example would miss.
const METHOD_LIST_SCHEMA = { $ref: getSchemaPath(MethodListDto) };
const OWN_SHOP_PARAM = {
  name: 'shopId',
  format: 'uuid',
  description: "The key's own shop; any other shop id is a 403, a malformed one a 400 naming shopId.",
};

@ApiTags('methods')
@ApiExtraModels(MethodListDto, PayoutFieldsResponseDto)
@UseGuards(MerchantAuthGuard)
@Controller()
export class MerchantMethodsController {
  constructor(@Inject(REQUEST_CLIENT) private readonly client: KafkaRequestClient) {}

  @Get(['shops/:shopId/payment-methods', 'api/v1/shops/:shopId/payment-methods'])
  @MerchantEndpoint({
    summary: 'Retrieve Payment Methods: the enabled payment methods of the shop',
    response: { example: paymentMethodsExample, schema: METHOD_LIST_SCHEMA },
    problems: [400, 403, 503],
  })
  @ApiParam(OWN_SHOP_PARAM)
  paymentMethods(@OwnShopId() shopId: string): Promise<MethodListView> {
    return this.list('payment', shopId);
  }

  @Get(['payouts/payout-methods/:shopId', 'api/v1/payouts/payout-methods/:shopId'])
  @MerchantEndpoint({
    summary: 'Retrieve Payout Methods: the enabled payout methods of the shop',
    response: { example: payoutMethodsExample, schema: METHOD_LIST_SCHEMA },
    problems: [400, 403, 503],
  })
  @ApiParam(OWN_SHOP_PARAM)
  payoutMethods(@OwnShopId() shopId: string): Promise<MethodListView> {
    return this.list('payout', shopId);
  }

  @Post(['payouts/fields', 'api/v1/payouts/fields'])
  @HttpCode(200)
  @MerchantEndpoint({
    summary: 'Retrieve Required Payout Fields: the payee fields a payout with these settings needs, with their formats',
    body: { type: PayoutFieldsRequestDto, example: payoutFieldsRequestExample },
    response: { example: payoutFieldsExample, schema: { $ref: getSchemaPath(PayoutFieldsResponseDto) } },
    // 422: the method is not one of the shop's enabled payout methods, or not for this currency or wallet type.
    problems: [422, 503],
  })
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
