import {
  Body,
  Controller,
  Get,
  Header,
  HttpCode,
  Inject,
  Param,
  ParseUUIDPipe,
  Post,
  Query,
  UseGuards,
} from '@nestjs/common';
import { ApiProperty, ApiTags } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsObject, IsUUID, ValidateNested } from 'class-validator';
import { canonicalCurrency } from '@payments/money';
import { methodFits } from '@payments/methods-domain';
import {
  CancelOrderCommand,
  GetOrderByMerchantIdQuery,
  GetOrderQuery,
  MethodListView,
  MethodQueryTypes,
  RefundOrderCommand,
  OrderCommandTypes,
  OrderView,
  Topics,
} from '@payments/contracts';
import { KafkaRequestClient } from '@payments/messaging';
import { ProblemException } from '@payments/platform';
import { CurrentShop, MerchantAuthGuard, ShopPrincipal } from '../auth/merchant-auth.guard';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { NewObjectId } from '../idempotency/new-object-id.decorator';
import { REQUEST_CLIENT } from '../tokens';
import { IsMerchantId } from '../validation/merchant-id.validator';
import { callbackUrlErrors } from '@payments/merchant-admin';
import { CostDto, CreateOrderDto } from './create-order.dto';
import { MerchantEndpoint } from '@payments/merchant-admin';
import { ask } from '@payments/merchant-admin';
import {
  cancelledOrderExample,
  createHostedOrderExample,
  createOrderExample,
  needActionOrderExample,
  orderAnswerShapes,
  orderExample,
  orderRefExample,
  refundedOrderExample,
  refundExample,
} from '@payments/merchant-admin';
import { crossFieldErrors, linkExpiry, redirectUrlsOf, toCreateOrderCommand } from './order-request.rules';
import { PaymentLinks, redirectUrlErrors } from '@payments/merchant-admin';
import { ShopRepository } from '@payments/merchant-admin';

const orderIdPipe = new ParseUUIDPipe({
  exceptionFactory: () => new ProblemException('notFound', 'No such order.'),
});

export class OrderRefDto {
  @ApiProperty({ format: 'uuid' })
  @IsDefined()
  @IsUUID('all', { message: 'must be an order id (UUID)' })
  orderId: string;
}

export class RefundOrderDto extends OrderRefDto {
  @ApiProperty({ type: CostDto, description: 'What to refund; in the order currency, at most what is left.' })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => CostDto)
  cost: CostDto;
}

export class FindOrderDto {
  @ApiProperty({
    description: 'The id the merchant gave the order (`order.merchantOrderId`)',
    example: 'shop-order-1001',
  })
  @IsMerchantId()
  merchantOrderId: string;
}

/** Reject was deprecated on 03.03.2026 in favour of cancel; the spec names no removal date, we give a year. */
const REJECT_DEPRECATED_AT = Math.floor(Date.UTC(2026, 2, 3) / 1000);
const REJECT_SUNSET = new Date(Date.UTC(2027, 2, 3)).toUTCString();

@ApiTags('orders')
@UseGuards(MerchantAuthGuard)
@Controller(['order', 'api/v1/order'])
export class OrdersController {
  constructor(
    @Inject(REQUEST_CLIENT) private readonly client: KafkaRequestClient,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    private readonly shops: ShopRepository,
    private readonly links: PaymentLinks,
  ) {}

  @Post()
  @HttpCode(201)
  @MerchantEndpoint({
    summary: 'Create Order',
    status: 201,
    description:
      "With `paymentPageDesign.format` = `hosted` (or none, when the shop's default integration is hosted) the order stays registered and the answer carries `data.paymentLink` and `data.expiresAt`: send the payer there. `redirectUrls` must be on the shop's allow-listed domains.",
    body: { type: CreateOrderDto, example: createOrderExample, examples: { hosted: createHostedOrderExample } },
    response: { ...orderAnswerShapes, example: orderExample, description: 'The order, registered' },
    problems: [409, 422, 503],
  })
  async create(
    @CurrentShop() shop: ShopPrincipal,
    @Body() body: CreateOrderDto,
    @NewObjectId() orderId: string,
  ): Promise<OrderView> {
    // Loaded with the API key (MerchantAuthGuard): no query of its own on the hot path.
    const settings = shop.settings ?? (await this.shops.findWithCompany(shop.shopId))?.shop;
    const domains = settings?.redirectDomains ?? [];
    const where = body.redirectUrls ? 'redirectUrls' : 'paymentSettings.redirectUrls';
    const urls = redirectUrlsOf(body);
    const expiry = linkExpiry(body, Date.now());
    const errors = [
      ...crossFieldErrors(body),
      ...callbackUrlErrors(body.callbackUrl, 'callbackUrl', this.config),
      ...redirectUrlErrors(urls?.success, `${where}.success`, domains, this.config),
      ...redirectUrlErrors(urls?.failure, `${where}.failure`, domains, this.config),
      ...('error' in expiry ? [expiry.error] : []),
    ];
    if (errors.length > 0 || 'error' in expiry)
      throw new ProblemException('validation', `${errors[0].path}: ${errors[0].message}`, errors);
    const format = body.paymentPageDesign?.format ?? settings?.defaultIntegration ?? 'host_to_host';
    const hosted =
      format === 'hosted' || format === 'redirect'
        ? { linkHash: this.links.hashFor('order', orderId), expiresAt: expiry.expiresAt }
        : undefined;
    const shopHosted =
      format === 'shop_hosted' && !('error' in expiry)
        ? await this.instructionMethod(shop.shopId, body, expiry.expiresAt)
        : undefined;
    const command = {
      ...toCreateOrderCommand(orderId, shop.shopId, body, hosted),
      ...(shopHosted ? { shopHosted } : {}),
    };
    const view = await ask<OrderView>(this.client, Topics.ordersCommands, orderId, OrderCommandTypes.create, command);
    return this.links.withOrderLink(view);
  }

  @Post('cancel')
  @HttpCode(200)
  @MerchantEndpoint({
    summary: 'Cancel order: a non-final order becomes cancelled; a final one is a 409 with its status',
    body: { type: OrderRefDto, example: orderRefExample },
    response: { ...orderAnswerShapes, example: cancelledOrderExample, description: 'The order, cancelled' },
    problems: [404, 409, 503],
  })
  cancel(@CurrentShop() shop: ShopPrincipal, @Body() body: OrderRefDto): Promise<OrderView> {
    const command: CancelOrderCommand = { orderId: body.orderId, shopId: shop.shopId };
    return ask<OrderView>(this.client, Topics.ordersCommands, body.orderId, OrderCommandTypes.cancel, command);
  }

  @Post('refund')
  @HttpCode(200)
  @MerchantEndpoint({
    summary: 'Refund a paid order in part or in full: partially_refunded, then refunded',
    body: { type: RefundOrderDto, example: refundExample },
    response: { ...orderAnswerShapes, example: refundedOrderExample, description: 'The order with its refunds' },
    problems: [404, 409, 422, 503],
  })
  refund(
    @CurrentShop() shop: ShopPrincipal,
    @Body() body: RefundOrderDto,
    @NewObjectId() refundId: string,
  ): Promise<OrderView> {
    const command: RefundOrderCommand = {
      refundId,
      orderId: body.orderId,
      shopId: shop.shopId,
      cost: {
        amount: body.cost.amount,
        currency: canonicalCurrency(body.cost.currency),
        ...(body.cost.tokenStandard ? { tokenStandard: body.cost.tokenStandard } : {}),
      },
    };
    return ask<OrderView>(this.client, Topics.ordersCommands, body.orderId, OrderCommandTypes.refund, command);
  }

  /** Deprecated (03.03.2026): does what cancel does. The status `rejected` no longer exists. */
  @Post('reject')
  @HttpCode(200)
  @Header('Deprecation', `@${REJECT_DEPRECATED_AT}`)
  @Header('Sunset', REJECT_SUNSET)
  @Header('Link', '</api/v1/order/cancel>; rel="successor-version"')
  @MerchantEndpoint({
    summary: 'Reject order (deprecated): use POST /api/v1/order/cancel',
    deprecated: true,
    body: { type: OrderRefDto, example: orderRefExample },
    response: {
      ...orderAnswerShapes,
      example: cancelledOrderExample,
      description: 'The order, cancelled; with Deprecation, Sunset and Link headers',
    },
    problems: [404, 409, 503],
  })
  reject(@CurrentShop() shop: ShopPrincipal, @Body() body: OrderRefDto): Promise<OrderView> {
    return this.cancel(shop, body);
  }

  @Get()
  @MerchantEndpoint({
    summary: "Find an order by the merchant's own id (merchantOrderId): the same answer as Retrieve Order",
    response: { ...orderAnswerShapes, example: refundedOrderExample },
    problems: [400, 404, 503],
  })
  find(@CurrentShop() shop: ShopPrincipal, @Query() q: FindOrderDto): Promise<OrderView> {
    const query: GetOrderByMerchantIdQuery = { merchantOrderId: q.merchantOrderId, shopId: shop.shopId };
    return this.linked(
      ask<OrderView>(
        this.client,
        Topics.ordersCommands,
        // Keyed by the shop alone: the merchant's id is free text and never belongs in a message key.
        shop.shopId,
        OrderCommandTypes.getByMerchantId,
        query,
      ),
    );
  }

  /**
   * shop_hosted applies to an instruction method of the shop that fits this payment (`methodFits`:
   * enabled, the currency with its token standard, the amount) and the instrument type when given;
   * with none, the format is ignored and the standard flow runs (ARCHITECTURE.md section 8).
   */
  private async instructionMethod(
    shopId: string,
    body: CreateOrderDto,
    expiresAt: string,
  ): Promise<{ method: string; expiresAt: string } | undefined> {
    const list = await ask<MethodListView>(this.client, Topics.methodsQueries, shopId, MethodQueryTypes.paymentList, {
      shopId,
    });
    const cost = body.order.cost;
    const terms = { currency: cost.currency, tokenStandard: cost.tokenStandard, amount: cost.amount };
    const found = list.methods.find(
      (m) =>
        m.dataEntryMode === 'instruction' &&
        (!body.instrumentType || m.instrumentType === body.instrumentType) &&
        methodFits(m, terms),
    );
    return found ? { method: found.code, expiresAt } : undefined;
  }

  private async linked(view: Promise<OrderView>): Promise<OrderView> {
    return this.links.withOrderLink(await view);
  }

  @Get(':orderId')
  @MerchantEndpoint({
    summary: 'Retrieve Order',
    description:
      'An order in need_action carries `needAction`: the rule that fired (amount_outside_range, currency_differs, provider_timeout, duplicate_payment), the expected and reported money, the allowed range in force and its bounds, and what resolves it.',
    response: {
      ...orderAnswerShapes,
      example: needActionOrderExample,
      variants: [refundedOrderExample, ...orderAnswerShapes.variants],
    },
    problems: [404, 503],
  })
  get(@CurrentShop() shop: ShopPrincipal, @Param('orderId', orderIdPipe) orderId: string): Promise<OrderView> {
    const query: GetOrderQuery = { orderId, shopId: shop.shopId };
    return this.linked(ask<OrderView>(this.client, Topics.ordersCommands, orderId, OrderCommandTypes.get, query));
  }
}
