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
import { ask } from '@payments/merchant-admin';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { CardTokens, NewObjectId } from '../idempotency/new-object-id.decorator';
import { MerchantEndpoint } from '@payments/merchant-admin';
import { CARD_VAULT, REQUEST_CLIENT } from '../tokens';
import { IsMerchantId } from '../validation/merchant-id.validator';
import { callbackUrlErrors } from '@payments/merchant-admin';
import { toCommandCost } from '../validation/cost-command';
import { CreatePayoutDto } from './create-payout.dto';
import { PayoutMethodResolver } from './payout-method.resolver';
import { PaymentLinks, redirectUrlErrors } from '@payments/merchant-admin';
import { ShopRepository } from '@payments/merchant-admin';

const DEFAULT_TIME_LIMIT_SECONDS = 1800;
import {
  completedPayoutExample,
  createHostedPayoutExample,
  createPayoutExample,
  payoutAnswerShapes,
  payoutExample,
} from '@payments/merchant-admin';

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
    private readonly shops: ShopRepository,
    private readonly links: PaymentLinks,
  ) {}

  @Post()
  @HttpCode(201)
  @MerchantEndpoint({
    summary:
      "Create Payout Request: checked against the shop's payout method and its required payee fields, then sent to the provider asynchronously",
    description:
      "Payout via payment page: when the shop has it on (operator setting payoutViaPaymentPage) and the payout carries no payee, only payout.merchantPayoutId and payout.cost are required; the method is paymentSettingsAlias, else the shop's payout method that fits the amount and currency (none: 422 with statusCode 1-03-02). The payout stays registered and is not sent; the answer carries data.payoutLink and data.expiresAt for the recipient. redirectUrls must be on the shop's allow-listed domains.",
    status: 201,
    body: { type: CreatePayoutDto, example: createPayoutExample, examples: { hosted: createHostedPayoutExample } },
    response: { ...payoutAnswerShapes, example: payoutExample, description: 'The payout, registered' },
    problems: [409, 422, 503],
  })
  async create(
    @CurrentShop() shop: ShopPrincipal,
    @Body() body: CreatePayoutDto,
    @NewObjectId() payoutId: string,
    @CardTokens() cardTokens: (token: string) => void,
  ): Promise<PayoutView> {
    const crossField = [
      ...payoutCrossFieldErrors(body),
      ...callbackUrlErrors(body.callbackUrl, 'callbackUrl', this.config),
    ];
    if (crossField.length > 0) throw invalid(crossField);
    const settings = (await this.shops.findWithCompany(shop.shopId))?.shop;
    const noPayee = body.payee === undefined || Object.keys(body.payee).length === 0;
    if (noPayee && settings?.payoutViaPaymentPage === true)
      return this.createViaPage(shop.shopId, body, payoutId, settings.redirectDomains);
    const method = body.payout.method ?? body.paymentSettingsAlias;
    const missing: FieldError[] = [
      ...(method === undefined ? [{ path: 'payout.method', message: 'is required' }] : []),
      ...(body.payee === undefined ? [{ path: 'payee', message: 'is required' }] : []),
    ];
    if (missing.length > 0 || method === undefined) throw invalid(missing);
    // Nothing is stored or sent unless the method and the payee pass.
    const checked = await this.methods.check(shop.shopId, { ...body, payout: { ...body.payout, method } });
    if (checked.kind === 'invalid') throw invalid(checked.errors);
    const { payee, payeeCards } = await this.tokenizedPayee(body.payee ?? {}, checked.route.cardFields);
    for (const card of Object.values(payeeCards)) cardTokens(card.token);
    const command: CreatePayoutCommand = {
      payoutId,
      shopId: shop.shopId,
      merchantPayoutId: body.payout.merchantPayoutId,
      method,
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

  /**
   * Payout via payment page: only merchantPayoutId and cost are needed; the method is chosen now
   * (1-03-02 when none fits) and the payout waits, undispatched, for its recipient on the link.
   */
  private async createViaPage(
    shopId: string,
    body: CreatePayoutDto,
    payoutId: string,
    domains: readonly string[],
  ): Promise<PayoutView> {
    const errors = [
      ...redirectUrlErrors(body.redirectUrls?.success, 'redirectUrls.success', domains, this.config),
      ...redirectUrlErrors(body.redirectUrls?.failure, 'redirectUrls.failure', domains, this.config),
    ];
    if (errors.length > 0) throw invalid(errors);
    const chosen = await this.methods.forPage(shopId, body);
    if (chosen.kind === 'none') {
      const detail = "none of the shop's payout methods offers this currency for this amount";
      throw new ProblemException('unprocessable', detail, [{ path: 'payout.cost', message: detail }], {
        statusCode: '1-03-02',
      });
    }
    const expiresAt = new Date(Date.now() + (body.timeLimit ?? DEFAULT_TIME_LIMIT_SECONDS) * 1000).toISOString();
    const redirectUrls = {
      ...(body.redirectUrls?.success ? { success: body.redirectUrls.success } : {}),
      ...(body.redirectUrls?.failure ? { failure: body.redirectUrls.failure } : {}),
    };
    const command: CreatePayoutCommand = {
      payoutId,
      shopId,
      merchantPayoutId: body.payout.merchantPayoutId,
      method: chosen.method,
      provider: chosen.route.provider,
      cost: toCommandCost(body.payout.cost),
      ...(body.payout.cryptoTokenStandard ? { cryptoTokenStandard: body.payout.cryptoTokenStandard } : {}),
      ...(body.payout.description ? { description: body.payout.description } : {}),
      instrumentType: chosen.route.instrumentType,
      ...(body.walletType ? { walletType: body.walletType } : {}),
      payee: {},
      ...(body.callbackUrl ? { callbackUrl: body.callbackUrl } : {}),
      hosted: {
        linkHash: this.links.hashFor('payout', payoutId),
        expiresAt,
        ...(body.paymentPageDesign?.locale ? { locale: body.paymentPageDesign.locale } : {}),
        ...(Object.keys(redirectUrls).length > 0 ? { redirectUrls } : {}),
      },
    };
    const view = await ask<PayoutView>(
      this.client,
      Topics.payoutsCommands,
      payoutId,
      PayoutCommandTypes.create,
      command,
    );
    return this.links.withPayoutLink(view);
  }

  @Get()
  @MerchantEndpoint({
    summary: "Find a payout by the merchant's own id (merchantPayoutId): the same answer as Retrieve Payout",
    response: { ...payoutAnswerShapes, example: completedPayoutExample },
    problems: [400, 404, 503],
  })
  async find(@CurrentShop() shop: ShopPrincipal, @Query() q: FindPayoutDto): Promise<PayoutView> {
    const query: GetPayoutByMerchantIdQuery = { merchantPayoutId: q.merchantPayoutId, shopId: shop.shopId };
    const view = await ask<PayoutView>(
      this.client,
      Topics.payoutsCommands,
      // Keyed by the shop alone: the merchant's id is free text and never belongs in a message key.
      shop.shopId,
      PayoutCommandTypes.getByMerchantId,
      query,
    );
    return this.links.withPayoutLink(view);
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
  async get(
    @CurrentShop() shop: ShopPrincipal,
    @Param('payoutId', payoutIdPipe) payoutId: string,
  ): Promise<PayoutView> {
    const query: GetPayoutQuery = { payoutId, shopId: shop.shopId };
    const view = await ask<PayoutView>(this.client, Topics.payoutsCommands, payoutId, PayoutCommandTypes.get, query);
    return this.links.withPayoutLink(view);
  }
}
