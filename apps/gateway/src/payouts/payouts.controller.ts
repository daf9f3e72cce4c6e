import { Body, Controller, Get, HttpCode, Inject, Param, ParseUUIDPipe, Post, Query, UseGuards } from '@nestjs/common';
import { ApiProperty, ApiTags } from '@nestjs/swagger';
import { CardVault } from '@payments/card-vault';
import {
  CardRef,
  CreatePayoutCommand,
  GetPayoutByMerchantIdQuery,
  GetPayoutQuery,
  PayoutCommandTypes,
  PayoutView,
  Topics,
} from '@payments/contracts';
import { KafkaRequestClient } from '@payments/messaging';
import { FieldError, ProblemException } from '@payments/platform';
import { CurrentShop, MerchantAuthGuard, ShopPrincipal } from '../auth/merchant-auth.guard';
import { ask } from '../messaging/domain-requests';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { NewObjectId } from '../idempotency/new-object-id.decorator';
import { MerchantEndpoint } from '../openapi/endpoint.decorator';
import { CARD_VAULT, REQUEST_CLIENT } from '../tokens';
import { IsMerchantId } from '../validation/merchant-id.validator';
import { callbackUrlErrors } from '../validation/callback-url.validator';
import { toCommandCost } from '../validation/cost-command';
import { CreatePayoutDto } from './create-payout.dto';
import { PayoutMethodResolver } from './payout-method.resolver';
import { completedPayoutExample, createPayoutExample, payoutAnswerShapes, payoutExample } from './payouts.examples';

const payoutIdPipe = new ParseUUIDPipe({ exceptionFactory: () => new ProblemException('notFound', 'No such payout.') });

function invalid(errors: FieldError[]): ProblemException {
  return new ProblemException('validation', errors.map((e) => `${e.path}: ${e.message}`).join('; '), errors);
}

export class FindPayoutDto {
  @ApiProperty({ description: 'The id the merchant gave the payout (`payout.merchantPayoutId`)', example: 'po-1001' })
  @IsMerchantId()
  merchantPayoutId: string;
}

/** Rules across fields that a field's own validator cannot see. */
export function payoutCrossFieldErrors(body: CreatePayoutDto): FieldError[] {
  if (body.walletType !== undefined && body.instrumentType !== 'wallet') {
    return [{ path: 'walletType', message: 'applies only with instrumentType = wallet' }];
  }
  return [];
}

@ApiTags('payouts')
@UseGuards(MerchantAuthGuard)
@Controller(['payouts', 'api/v1/payouts'])
export class PayoutsController {
  constructor(
    @Inject(REQUEST_CLIENT) private readonly client: KafkaRequestClient,
    private readonly methods: PayoutMethodResolver,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(CARD_VAULT) private readonly vault: CardVault,
  ) {}

  @Post()
  @HttpCode(201)
  @MerchantEndpoint({
    summary:
      "Create Payout Request: checked against the shop's payout method and its required payee fields, then sent to the provider asynchronously",
    status: 201,
    body: { type: CreatePayoutDto, example: createPayoutExample },
    response: { ...payoutAnswerShapes, example: payoutExample, description: 'The payout, registered' },
    problems: [409, 422, 503],
  })
  async create(
    @CurrentShop() shop: ShopPrincipal,
    @Body() body: CreatePayoutDto,
    @NewObjectId() payoutId: string,
  ): Promise<PayoutView> {
    const crossField = [
      ...payoutCrossFieldErrors(body),
      ...callbackUrlErrors(body.callbackUrl, 'callbackUrl', this.config),
    ];
    if (crossField.length > 0) throw invalid(crossField);
    // Nothing is stored or sent unless the method and the payee pass.
    const checked = await this.methods.check(shop.shopId, body);
    if (checked.kind === 'invalid') throw invalid(checked.errors);
    const { payee, payeeCards } = await this.tokenizedPayee(body.payee, checked.route.cardFields);
    const command: CreatePayoutCommand = {
      payoutId,
      shopId: shop.shopId,
      merchantPayoutId: body.payout.merchantPayoutId,
      method: body.payout.method,
      provider: checked.route.provider,
      cost: toCommandCost(body.payout.cost),
      ...(body.payout.cryptoTokenStandard ? { cryptoTokenStandard: body.payout.cryptoTokenStandard } : {}),
      ...(body.payout.description ? { description: body.payout.description } : {}),
      instrumentType: checked.route.instrumentType,
      ...(body.walletType ? { walletType: body.walletType } : {}),
      payee,
      ...(Object.keys(payeeCards).length > 0 ? { payeeCards } : {}),
      ...(body.callbackUrl ? { callbackUrl: body.callbackUrl } : {}),
    };
    return ask<PayoutView>(this.client, Topics.payoutsCommands, payoutId, PayoutCommandTypes.create, command);
  }

  @Get()
  @MerchantEndpoint({
    summary: "Find a payout by the merchant's own id (merchantPayoutId): the same answer as Retrieve Payout",
    response: { ...payoutAnswerShapes, example: completedPayoutExample },
    problems: [400, 404, 503],
  })
  find(@CurrentShop() shop: ShopPrincipal, @Query() q: FindPayoutDto): Promise<PayoutView> {
    const query: GetPayoutByMerchantIdQuery = { merchantPayoutId: q.merchantPayoutId, shopId: shop.shopId };
    return ask<PayoutView>(
      this.client,
      Topics.payoutsCommands,
      // Keyed by the shop alone: the merchant's id is free text and never belongs in a message key.
      shop.shopId,
      PayoutCommandTypes.getByMerchantId,
      query,
    );
  }

  /** The payee as the command carries it: its card numbers exchanged for vault tokens here, at the edge. */
  private async tokenizedPayee(
    given: Record<string, string>,
    cardFields: string[],
  ): Promise<{ payee: Record<string, string>; payeeCards: Record<string, CardRef> }> {
    const payee: Record<string, string> = {};
    const payeeCards: Record<string, CardRef> = {};
    for (const [field, value] of Object.entries(given)) {
      if (!cardFields.includes(field)) {
        payee[field] = value;
        continue;
      }
      const { token, bin, last4, masked } = await this.vault.tokenize(value);
      payeeCards[field] = { token, bin, last4, masked };
    }
    return { payee, payeeCards };
  }

  @Get(':payoutId')
  @MerchantEndpoint({
    summary: 'Retrieve Payout',
    response: { ...payoutAnswerShapes, example: completedPayoutExample },
    problems: [404, 503],
  })
  get(@CurrentShop() shop: ShopPrincipal, @Param('payoutId', payoutIdPipe) payoutId: string): Promise<PayoutView> {
    const query: GetPayoutQuery = { payoutId, shopId: shop.shopId };
    return ask<PayoutView>(this.client, Topics.payoutsCommands, payoutId, PayoutCommandTypes.get, query);
  }
}
