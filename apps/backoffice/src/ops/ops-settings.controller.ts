import {
  Body,
  Controller,
  Get,
  HttpCode,
  Inject,
  Param,
  ParseUUIDPipe,
  Patch,
  Post,
  Query,
  UseGuards,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  GetOrderForOperatorQuery,
  ListOrdersForOperatorQuery,
  OrderCommandTypes,
  OrderPage,
  OrderView,
  OperatorIdentity,
  ResolveOrderCommand,
  ShopSettingsSnapshot,
  asOperator,
  commandTopic,
} from '@payments/contracts';
import { KafkaRequestClient } from '@payments/messaging';
import { ProblemException } from '@payments/platform';
import { ActingOperator } from '../auth/acting-operator.decorator';
import { OpsAuthGuard } from '../auth/ops-auth.guard';
import { Audited } from '../operators/audited.decorator';
import { BACKOFFICE_CONFIG, BackofficeConfig } from '../config';
import { assertValid, callbackUrlErrors } from '@payments/merchant-admin';
import { ask } from '@payments/merchant-admin';
import { ShopSettingsPublisher, toSnapshot, withoutSecret } from '@payments/merchant-admin';
import { CompanyEntity } from '@payments/merchant-admin';
import { ShopRepository } from '@payments/merchant-admin';
import { REQUEST_CLIENT } from '../tokens';
import { OpsEndpoint } from '@payments/merchant-admin';
import { ListOrdersDto, ResolveOrderDto, UpdateCompanySettingsDto, UpdateShopSettingsDto } from './ops.dto';
import {
  companyExample,
  companySettingsExample,
  resolvedOrderExample,
  resolveOrderExample,
  shopSettingsExample,
  updateShopSettingsExample,
} from './ops.examples';
import { needActionOrderExample, orderAnswerShapes } from '@payments/merchant-admin';

const uuid = (what: string) =>
  new ParseUUIDPipe({ exceptionFactory: () => new ProblemException('notFound', `No such ${what}.`) });

/** Technical support: shop and company settings, and manual resolution of orders in need_action. */
@UseGuards(OpsAuthGuard)
@Controller('ops/v1')
export class OpsSettingsController {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly shops: ShopRepository,
    private readonly publisher: ShopSettingsPublisher,
    @Inject(REQUEST_CLIENT) private readonly client: KafkaRequestClient,
    @Inject(BACKOFFICE_CONFIG) private readonly config: BackofficeConfig,
  ) {}

  @Get('shops/:shopId/settings')
  @OpsEndpoint({
    summary: "A shop's settings (the callback secret is shown only when the shop is created)",
    response: { example: shopSettingsExample, nullable: ['callbackUrl'] },
    problems: [404],
  })
  async get(@Param('shopId', uuid('shop')) shopId: string): Promise<Omit<ShopSettingsSnapshot, 'callbackSecret'>> {
    const found = await this.shops.findWithCompany(shopId);
    if (!found) throw new ProblemException('notFound', 'No such shop.');
    return withoutSecret(toSnapshot(found.shop, found.company));
  }

  /** Changes what is given, keeps the rest; the orders service gets the new settings through `shops.settings`. */
  @Patch('shops/:shopId/settings')
  @Audited({
    action: 'shop.settings.update',
    object: 'shop',
    idParam: 'shopId',
    read: { method: 'get', args: ['shopId'] },
  })
  @OpsEndpoint({
    role: 'operator',
    summary:
      "Change a shop's allowed amount deviation, automatic finalization of need_action, processing timeouts, callback URL, default integration, payout via payment page and redirect domains",
    body: { type: UpdateShopSettingsDto, example: updateShopSettingsExample },
    response: { example: shopSettingsExample, description: 'The settings after the change', nullable: ['callbackUrl'] },
    problems: [404],
  })
  async update(
    @Param('shopId', uuid('shop')) shopId: string,
    @Body() body: UpdateShopSettingsDto,
  ): Promise<Omit<ShopSettingsSnapshot, 'callbackSecret'>> {
    assertValid(callbackUrlErrors(body.callbackUrl, 'callbackUrl', this.config));
    return this.dataSource.transaction(async (m) => {
      const shop = await this.shops.findShopForUpdate(m, shopId);
      if (!shop) throw new ProblemException('notFound', 'No such shop.');
      if (body.amountDeviation) {
        shop.amountDeviationLowerPercent = body.amountDeviation.lowerPercent;
        shop.amountDeviationUpperPercent = body.amountDeviation.upperPercent;
      }
      if (body.autoFinalizeNeedAction !== undefined) shop.autoFinalizeNeedAction = body.autoFinalizeNeedAction;
      if (body.callbackUrl !== undefined) shop.callbackUrl = body.callbackUrl;
      if (body.defaultIntegration !== undefined) shop.defaultIntegration = body.defaultIntegration;
      if (body.payoutViaPaymentPage !== undefined) shop.payoutViaPaymentPage = body.payoutViaPaymentPage;
      if (body.redirectDomains !== undefined)
        shop.redirectDomains = [...new Set(body.redirectDomains.map((d) => d.toLowerCase().replace(/\.$/, '')))];
      if (body.processingTimeout?.defaultSeconds !== undefined)
        shop.processingTimeoutSeconds = body.processingTimeout.defaultSeconds;
      if (body.processingTimeout?.byPaymentSetting)
        shop.processingTimeouts = { ...shop.processingTimeouts, ...body.processingTimeout.byPaymentSetting };
      shop.settingsVersion += 1;
      await this.shops.saveShop(m, shop);
      return withoutSecret(await this.publisher.publish(m, shop, await this.shops.companyOf(m, shop)));
    });
  }

  @Patch('companies/:companyId/settings')
  @Audited({
    action: 'company.settings.update',
    object: 'company',
    idParam: 'companyId',
    read: { method: 'companyBefore', args: ['companyId'] },
  })
  @OpsEndpoint({
    role: 'operator',
    summary: 'Company setting "Use customer data as payer information"',
    body: { type: UpdateCompanySettingsDto, example: companySettingsExample },
    response: { example: { ...companyExample, ...companySettingsExample } },
    problems: [404],
  })
  async updateCompany(@Param('companyId', uuid('company')) companyId: string, @Body() body: UpdateCompanySettingsDto) {
    return this.dataSource.transaction(async (m) => {
      const company = await this.shops.findCompanyForUpdate(m, companyId);
      if (!company) throw new ProblemException('notFound', 'No such company.');
      company.useCustomerDataAsPayer = body.useCustomerDataAsPayer;
      await this.shops.saveCompany(m, company);
      for (const shop of await this.shops.shopsOfCompanyForUpdate(m, companyId)) {
        shop.settingsVersion += 1;
        await this.shops.saveShop(m, shop);
        await this.publisher.publish(m, shop, company);
      }
      return { id: company.id, name: company.name, useCustomerDataAsPayer: company.useCustomerDataAsPayer };
    });
  }

  /** The company's settings as they were, for the audit record's `before` (not a route). */
  async companyBefore(companyId: string) {
    const company = await this.dataSource.manager.findOne(CompanyEntity, { where: { id: companyId } });
    return company && { id: company.id, name: company.name, useCustomerDataAsPayer: company.useCustomerDataAsPayer };
  }

  @Get('orders')
  @OpsEndpoint({
    summary: "Any shop's orders, newest first: by status (the need_action queue), shop or merchant order id",
    response: {
      example: { items: [needActionOrderExample], nextCursor: 'MjAyNi0xMS0yNFQxMDoxNTowMC4wMDBafDdkNmYxYjJh' },
      variants: orderAnswerShapes.variants.map((v) => ({ items: [v], nextCursor: null })),
      nullable: ['nextCursor'],
      open: orderAnswerShapes.open,
      description: 'A page of orders',
    },
    problems: [400, 503],
  })
  list(@Query() q: ListOrdersDto, @ActingOperator() operator: OperatorIdentity): Promise<OrderPage> {
    const query: ListOrdersForOperatorQuery = {
      limit: q.limit ?? 50,
      ...(q.status ? { status: q.status } : {}),
      ...(q.shopId ? { shopId: q.shopId } : {}),
      ...(q.merchantOrderId ? { merchantOrderId: q.merchantOrderId } : {}),
      ...(q.cursor ? { cursor: q.cursor } : {}),
    };
    return ask<OrderPage>(
      this.client,
      commandTopic('orders', 'operator'),
      q.shopId ?? 'list',
      OrderCommandTypes.listForOperator,
      asOperator(operator, query),
    );
  }

  @Get('orders/:orderId')
  @OpsEndpoint({
    summary: "Any shop's order; in need_action, why it waits and what resolves it (`needAction`)",
    response: { ...orderAnswerShapes, example: needActionOrderExample, description: 'The order' },
    problems: [404, 503],
  })
  async order(
    @Param('orderId', uuid('order')) orderId: string,
    @ActingOperator() operator: OperatorIdentity,
  ): Promise<OrderView> {
    const query: GetOrderForOperatorQuery = { orderId };
    const view = await ask<OrderView>(
      this.client,
      commandTopic('orders', 'operator'),
      orderId,
      OrderCommandTypes.getForOperator,
      asOperator(operator, query),
    );
    return view;
  }

  @Post('orders/:orderId/resolve')
  @HttpCode(200)
  @Audited({
    action: 'order.resolve',
    object: 'order',
    idParam: 'orderId',
    read: { method: 'order', args: ['orderId'] },
  })
  @OpsEndpoint({
    role: 'operator',
    summary: 'Resolve an order in need_action by hand: accept the reported amount, or fail it',
    body: { type: ResolveOrderDto, example: resolveOrderExample },
    response: { ...orderAnswerShapes, example: resolvedOrderExample, description: 'The order after the resolution' },
    problems: [404, 409, 503],
  })
  resolve(
    @Param('orderId', uuid('order')) orderId: string,
    @Body() body: ResolveOrderDto,
    @ActingOperator() operator: OperatorIdentity,
  ): Promise<OrderView> {
    const command: ResolveOrderCommand = asOperator(operator, {
      orderId,
      action: body.action,
      ...(body.note ? { operatorNote: body.note } : {}),
    });
    return ask<OrderView>(this.client, commandTopic('orders', 'operator'), orderId, OrderCommandTypes.resolve, command);
  }
}
