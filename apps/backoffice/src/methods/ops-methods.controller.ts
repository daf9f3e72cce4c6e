import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  ParseUUIDPipe,
  Patch,
  Post,
  UseGuards,
} from '@nestjs/common';
import { ApiExtraModels, getSchemaPath } from '@nestjs/swagger';
import { randomUUID } from 'node:crypto';
import {
  CreateMethodCommand,
  DeleteMethodCommand,
  MethodCurrency,
  MethodDefinition,
  MethodDirection,
  MethodListView,
  MethodQueryTypes,
  MethodView,
  OperatorIdentity,
  UpdateMethodCommand,
  asOperator,
  commandTopic,
} from '@payments/contracts';
import { KafkaRequestClient } from '@payments/messaging';
import { checkMethodDefinition } from '@payments/methods-domain';
import { canonicalCurrency } from '@payments/money';
import { ProblemException } from '@payments/platform';
import { ActingOperator } from '../auth/acting-operator.decorator';
import { OpsAuthGuard } from '../auth/ops-auth.guard';
import { Audited } from '../operators/audited.decorator';
import { ask } from '@payments/merchant-admin';
import { ShopRepository } from '@payments/merchant-admin';
import { REQUEST_CLIENT } from '../tokens';
import { OpsEndpoint } from '@payments/merchant-admin';
import {
  CreateMethodDto,
  MethodCurrencyDto,
  MethodListDto,
  MethodViewDto,
  UpdateMethodDto,
} from '@payments/merchant-admin';
import {
  createdPaymentMethodExample,
  createdPayoutMethodExample,
  createPaymentMethodExample,
  createPayoutMethodExample,
  opsPaymentMethodsExample,
  opsPayoutMethodsExample,
  updatedPaymentMethodExample,
  updatedPayoutMethodExample,
  updatePaymentMethodExample,
  updatePayoutMethodExample,
} from '@payments/merchant-admin';

const uuid = (what: string) =>
  new ParseUUIDPipe({ exceptionFactory: () => new ProblemException('notFound', `No such ${what}.`) });

const currencies = (list: MethodCurrencyDto[]): MethodCurrency[] =>
  list.map((c) => ({
    currency: canonicalCurrency(c.currency),
    ...(c.tokenStandard ? { tokenStandard: c.tokenStandard } : {}),
    ...(c.minAmount ? { minAmount: c.minAmount } : {}),
    ...(c.maxAmount ? { maxAmount: c.maxAmount } : {}),
  }));

const METHOD_SCHEMA = { $ref: getSchemaPath(MethodViewDto) };
const METHOD_LIST_SCHEMA = { $ref: getSchemaPath(MethodListDto) };

/** Both lists are managed alike; the route's direction says which table. */
abstract class OpsMethodsRoutes {
  protected abstract readonly direction: MethodDirection;

  constructor(
    private readonly shops: ShopRepository,
    private readonly client: KafkaRequestClient,
  ) {}

  private async shopMustExist(shopId: string): Promise<void> {
    if (!(await this.shops.exists(shopId))) throw new ProblemException('notFound', 'No such shop.');
  }

  protected async doCreate(shopId: string, body: CreateMethodDto, operator: OperatorIdentity): Promise<MethodView> {
    await this.shopMustExist(shopId);
    const def: MethodDefinition = {
      code: body.code,
      instrumentType: body.instrumentType,
      ...(body.cardBrands ? { cardBrands: body.cardBrands } : {}),
      ...(body.walletTypes ? { walletTypes: body.walletTypes } : {}),
      ...(body.dataEntryMode ? { dataEntryMode: body.dataEntryMode } : {}),
      currencies: currencies(body.currencies),
      provider: body.provider,
      enabled: body.enabled ?? true,
    };
    // Rules across fields (brands only on cards, min ≤ max, …); the service checks them again on every change.
    const errors = checkMethodDefinition(def);
    if (errors.length > 0)
      throw new ProblemException(
        'validation',
        errors.length === 1
          ? `${errors[0].path}: ${errors[0].message}`
          : `${errors.length} fields are invalid; see errors.`,
        errors,
      );
    const command: CreateMethodCommand = { methodId: randomUUID(), shopId, direction: this.direction, ...def };
    return ask<MethodView>(
      this.client,
      commandTopic('methods', 'operator'),
      shopId,
      MethodQueryTypes.create,
      asOperator(operator, command),
    );
  }

  /** The method as it was, for the audit record's `before` (not a route). */
  async methodBefore(shopId: string, methodId: string, operator: OperatorIdentity): Promise<MethodView | null> {
    return (await this.doList(shopId, operator)).methods.find((m) => m.id === methodId) ?? null;
  }

  protected async doList(shopId: string, operator: OperatorIdentity): Promise<MethodListView> {
    await this.shopMustExist(shopId);
    const type = this.direction === 'payment' ? MethodQueryTypes.paymentList : MethodQueryTypes.payoutList;
    return ask<MethodListView>(
      this.client,
      commandTopic('methods', 'operator'),
      shopId,
      type,
      asOperator(operator, {
        shopId,
        includeDisabled: true,
      }),
    );
  }

  protected async doUpdate(
    shopId: string,
    methodId: string,
    body: UpdateMethodDto,
    operator: OperatorIdentity,
  ): Promise<MethodView> {
    await this.shopMustExist(shopId);
    // A member sent as null is left as it is, like one left out: IsOptional lets null through,
    // and the methods contract has no null for these members.
    const command: UpdateMethodCommand = {
      methodId,
      shopId,
      direction: this.direction,
      ...(body.code != null ? { code: body.code } : {}),
      ...(body.cardBrands != null ? { cardBrands: body.cardBrands } : {}),
      ...(body.walletTypes != null ? { walletTypes: body.walletTypes } : {}),
      ...(body.dataEntryMode != null ? { dataEntryMode: body.dataEntryMode } : {}),
      ...(body.currencies != null ? { currencies: currencies(body.currencies) } : {}),
      ...(body.provider != null ? { provider: body.provider } : {}),
      ...(body.enabled != null ? { enabled: body.enabled } : {}),
    };
    return ask<MethodView>(
      this.client,
      commandTopic('methods', 'operator'),
      shopId,
      MethodQueryTypes.update,
      asOperator(operator, command),
    );
  }

  protected async doDelete(shopId: string, methodId: string, operator: OperatorIdentity): Promise<void> {
    await this.shopMustExist(shopId);
    const command: DeleteMethodCommand = { methodId, shopId, direction: this.direction };
    await ask<MethodView>(
      this.client,
      commandTopic('methods', 'operator'),
      shopId,
      MethodQueryTypes.delete,
      asOperator(operator, command),
    );
  }
}

@ApiExtraModels(MethodViewDto, MethodListDto)
@UseGuards(OpsAuthGuard)
@Controller('ops/v1/shops/:shopId/payment-methods')
export class OpsPaymentMethodsController extends OpsMethodsRoutes {
  protected readonly direction = 'payment' as const;

  constructor(shops: ShopRepository, @Inject(REQUEST_CLIENT) client: KafkaRequestClient) {
    super(shops, client);
  }

  @Post()
  @HttpCode(201)
  @Audited({ action: 'payment-method.create', object: 'payment-method' })
  @OpsEndpoint({
    role: 'operator',
    summary: 'Add a payment method to a shop',
    status: 201,
    body: { type: CreateMethodDto, example: createPaymentMethodExample },
    response: { example: createdPaymentMethodExample, schema: METHOD_SCHEMA },
    problems: [404, 409, 503],
  })
  create(
    @Param('shopId', uuid('shop')) shopId: string,
    @Body() body: CreateMethodDto,
    @ActingOperator() operator: OperatorIdentity,
  ): Promise<MethodView> {
    return this.doCreate(shopId, body, operator);
  }

  @Get()
  @OpsEndpoint({
    summary: "A shop's payment methods, disabled ones included",
    response: { example: opsPaymentMethodsExample, schema: METHOD_LIST_SCHEMA },
    problems: [404, 503],
  })
  list(
    @Param('shopId', uuid('shop')) shopId: string,
    @ActingOperator() operator: OperatorIdentity,
  ): Promise<MethodListView> {
    return this.doList(shopId, operator);
  }

  @Patch(':methodId')
  @Audited({
    action: 'payment-method.update',
    object: 'payment-method',
    idParam: 'methodId',
    read: { method: 'methodBefore', args: ['shopId', 'methodId'] },
  })
  @OpsEndpoint({
    role: 'operator',
    summary: 'Change a payment method (code, brands, wallet types, currencies and limits, provider, enabled)',
    body: { type: UpdateMethodDto, example: updatePaymentMethodExample },
    response: { example: updatedPaymentMethodExample, schema: METHOD_SCHEMA },
    problems: [404, 409, 503],
  })
  update(
    @Param('shopId', uuid('shop')) shopId: string,
    @Param('methodId', uuid('payment method')) methodId: string,
    @Body() body: UpdateMethodDto,
    @ActingOperator() operator: OperatorIdentity,
  ): Promise<MethodView> {
    return this.doUpdate(shopId, methodId, body, operator);
  }

  @Delete(':methodId')
  @HttpCode(204)
  @Audited({
    action: 'payment-method.delete',
    object: 'payment-method',
    idParam: 'methodId',
    read: { method: 'methodBefore', args: ['shopId', 'methodId'] },
  })
  @OpsEndpoint({
    role: 'operator',
    summary: 'Delete a payment method (to keep it but hide it, PATCH enabled: false)',
    status: 204,
    problems: [404, 503],
  })
  remove(
    @Param('shopId', uuid('shop')) shopId: string,
    @Param('methodId', uuid('payment method')) methodId: string,
    @ActingOperator() operator: OperatorIdentity,
  ): Promise<void> {
    return this.doDelete(shopId, methodId, operator);
  }
}

@ApiExtraModels(MethodViewDto, MethodListDto)
@UseGuards(OpsAuthGuard)
@Controller('ops/v1/shops/:shopId/payout-methods')
export class OpsPayoutMethodsController extends OpsMethodsRoutes {
  protected readonly direction = 'payout' as const;

  constructor(shops: ShopRepository, @Inject(REQUEST_CLIENT) client: KafkaRequestClient) {
    super(shops, client);
  }

  @Post()
  @HttpCode(201)
  @Audited({ action: 'payout-method.create', object: 'payout-method' })
  @OpsEndpoint({
    role: 'operator',
    summary: 'Add a payout method to a shop',
    status: 201,
    body: { type: CreateMethodDto, example: createPayoutMethodExample },
    response: { example: createdPayoutMethodExample, schema: METHOD_SCHEMA },
    problems: [404, 409, 503],
  })
  create(
    @Param('shopId', uuid('shop')) shopId: string,
    @Body() body: CreateMethodDto,
    @ActingOperator() operator: OperatorIdentity,
  ): Promise<MethodView> {
    return this.doCreate(shopId, body, operator);
  }

  @Get()
  @OpsEndpoint({
    summary: "A shop's payout methods, disabled ones included",
    response: { example: opsPayoutMethodsExample, schema: METHOD_LIST_SCHEMA },
    problems: [404, 503],
  })
  list(
    @Param('shopId', uuid('shop')) shopId: string,
    @ActingOperator() operator: OperatorIdentity,
  ): Promise<MethodListView> {
    return this.doList(shopId, operator);
  }

  @Patch(':methodId')
  @Audited({
    action: 'payout-method.update',
    object: 'payout-method',
    idParam: 'methodId',
    read: { method: 'methodBefore', args: ['shopId', 'methodId'] },
  })
  @OpsEndpoint({
    role: 'operator',
    summary: 'Change a payout method (code, brands, wallet types, currencies and limits, provider, enabled)',
    body: { type: UpdateMethodDto, example: updatePayoutMethodExample },
    response: { example: updatedPayoutMethodExample, schema: METHOD_SCHEMA },
    problems: [404, 409, 503],
  })
  update(
    @Param('shopId', uuid('shop')) shopId: string,
    @Param('methodId', uuid('payout method')) methodId: string,
    @Body() body: UpdateMethodDto,
    @ActingOperator() operator: OperatorIdentity,
  ): Promise<MethodView> {
    return this.doUpdate(shopId, methodId, body, operator);
  }

  @Delete(':methodId')
  @HttpCode(204)
  @Audited({
    action: 'payout-method.delete',
    object: 'payout-method',
    idParam: 'methodId',
    read: { method: 'methodBefore', args: ['shopId', 'methodId'] },
  })
  @OpsEndpoint({
    role: 'operator',
    summary: 'Delete a payout method (to keep it but refuse payouts, PATCH enabled: false)',
    status: 204,
    problems: [404, 503],
  })
  remove(
    @Param('shopId', uuid('shop')) shopId: string,
    @Param('methodId', uuid('payout method')) methodId: string,
    @ActingOperator() operator: OperatorIdentity,
  ): Promise<void> {
    return this.doDelete(shopId, methodId, operator);
  }
}
