import { Body, Controller, Get, HttpCode, Inject, Param, ParseUUIDPipe, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { randomUUID } from 'node:crypto';
import { CreatePayoutCommand, GetPayoutQuery, PayoutCommandTypes, PayoutView, Topics } from '@payments/contracts';
import { KafkaRequestClient } from '@payments/messaging';
import { FieldError, ProblemException } from '@payments/platform';
import { CurrentShop, MerchantAuthGuard, ShopPrincipal } from '../auth/merchant-auth.guard';
import { ask } from '../orders/domain-requests';
import { REQUEST_CLIENT } from '../tokens';
import { toCommandCost } from '../validation/cost-command';
import { CreatePayoutDto } from './create-payout.dto';
import { PayoutMethodResolver } from './payout-method.resolver';

/** The one place a new payout's id is made (the Idempotency-Key will derive it later). */
const newObjectId = (): string => randomUUID();

const payoutIdPipe = new ParseUUIDPipe({ exceptionFactory: () => new ProblemException('notFound', 'No such payout.') });

function invalid(errors: FieldError[]): ProblemException {
  return new ProblemException('validation', errors.map((e) => `${e.path}: ${e.message}`).join('; '), errors);
}

/** Rules across fields that a field's own validator cannot see. */
export function payoutCrossFieldErrors(body: CreatePayoutDto): FieldError[] {
  if (body.walletType !== undefined && body.instrumentType !== 'wallet') {
    return [{ path: 'walletType', message: 'applies only with instrumentType = wallet' }];
  }
  return [];
}

@ApiTags('payouts')
@ApiBearerAuth()
@UseGuards(MerchantAuthGuard)
@Controller(['payouts', 'api/v1/payouts'])
export class PayoutsController {
  constructor(
    @Inject(REQUEST_CLIENT) private readonly client: KafkaRequestClient,
    private readonly methods: PayoutMethodResolver,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create Payout Request: checked against the shop\'s payout method and its required payee fields, then sent to the provider asynchronously' })
  async create(@CurrentShop() shop: ShopPrincipal, @Body() body: CreatePayoutDto): Promise<PayoutView> {
    const crossField = payoutCrossFieldErrors(body);
    if (crossField.length > 0) throw invalid(crossField);
    // Nothing is stored or sent unless the method and the payee pass.
    const checked = await this.methods.check(shop.shopId, body);
    if (checked.kind === 'invalid') throw invalid(checked.errors);
    const payoutId = newObjectId();
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
      payee: { ...body.payee },
      ...(body.callbackUrl ? { callbackUrl: body.callbackUrl } : {}),
    };
    return ask<PayoutView>(this.client, Topics.payoutsCommands, payoutId, PayoutCommandTypes.create, command);
  }

  @Get(':payoutId')
  @ApiOperation({ summary: 'Retrieve Payout' })
  get(@CurrentShop() shop: ShopPrincipal, @Param('payoutId', payoutIdPipe) payoutId: string): Promise<PayoutView> {
    const query: GetPayoutQuery = { payoutId, shopId: shop.shopId };
    return ask<PayoutView>(this.client, Topics.payoutsCommands, payoutId, PayoutCommandTypes.get, query);
  }
}
