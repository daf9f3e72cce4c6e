import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  ParseUUIDPipe,
  Post,
  Put,
  Query,
  UseGuards,
} from '@nestjs/common';
import {
  asOperator,
  commandTopic,
  DeletedFee,
  FeeListView,
  FeeScheduleView,
  LedgerOpsCommandTypes,
  OperatorIdentity,
  RateListView,
  RateView,
  SettlementView,
} from '@payments/contracts';
import { feeScheduleErrors, rateErrors, SettingError } from '@payments/ledger-domain';
import { KafkaRequestClient } from '@payments/messaging';
import { ask, assertValid, OpsEndpoint, ShopRepository } from '@payments/merchant-admin';
import { ProblemException } from '@payments/platform';
import { ActingOperator } from '../auth/acting-operator.decorator';
import { OpsAuthGuard } from '../auth/ops-auth.guard';
import { Audited } from '../operators/audited.decorator';
import { REQUEST_CLIENT } from '../tokens';
import { DeleteFeeDto, ListRatesDto, SetFeeDto, SetRateDto, SetSettlementDto } from './ledger-settings.dto';
import {
  deleteFeeExample,
  feeExample,
  feeListExample,
  rateExample,
  rateListExample,
  setFeeExample,
  setRateExample,
  setSettlementExample,
  settlementExample,
} from './ledger-settings.examples';

const uuid = (what: string) =>
  new ParseUUIDPipe({ exceptionFactory: () => new ProblemException('notFound', `No such ${what}.`) });

const METHOD = /^(\*|[a-z0-9][a-z0-9_-]{0,63})$/;

/** The path's method: a method code (`card`, `usdt-payout`) or `*` for the shop's other methods. */
function methodErrors(method: string): SettingError[] {
  return METHOD.test(method)
    ? []
    : [{ path: 'method', message: 'must be a method code (lower-case letters, digits, _ and -) or *' }];
}

/** The path's currency alone, by the fee rules (a fee line of zero checks nothing else). */
const currencyErrors = (currency: string): SettingError[] =>
  feeScheduleErrors({ currency, percent: '0', fixed: '0', minimum: '0' });

const LEDGER = () => commandTopic('ledger', 'operator');

/**
 * Operators set the books' fees, settlement delays and rates (issue 29 items 3 and 4, decision
 * 303). The ledger owns them; the backoffice checks each change by the ledger's own rules
 * (libs/ledger-domain, settings.ts: a bad one is a 400 naming the field and nothing is sent), asks
 * the ledger on `ledger.ops-commands` with the acting operator (decision 301), and audits it with
 * the mandatory reason.
 */
@UseGuards(OpsAuthGuard)
@Controller('ops/v1')
export class OpsLedgerSettingsController {
  constructor(
    private readonly shops: ShopRepository,
    @Inject(REQUEST_CLIENT) private readonly client: KafkaRequestClient,
  ) {}

  /** One operator command to the ledger on its operator path, keyed by `key`, with the acting operator. */
  private askLedger<T>(key: string, type: string, operator: OperatorIdentity, payload: object): Promise<T> {
    return ask<T>(this.client, LEDGER(), key, type, asOperator(operator, payload));
  }

  private async shopMustExist(shopId: string): Promise<void> {
    if (!(await this.shops.exists(shopId))) throw new ProblemException('notFound', 'No such shop.');
  }

  @Get('shops/:shopId/fees')
  @OpsEndpoint({
    summary: "A shop's fee lines, per method and currency (an operation with no line is charged no fee)",
    response: { example: feeListExample },
    problems: [404, 503],
  })
  async listFees(
    @Param('shopId', uuid('shop')) shopId: string,
    @ActingOperator() operator: OperatorIdentity,
  ): Promise<FeeListView> {
    await this.shopMustExist(shopId);
    return this.askLedger<FeeListView>(shopId, LedgerOpsCommandTypes.listFees, operator, { shopId });
  }

  /** The line as it was, for the audit record's `before` (not a route). */
  async feeBefore(
    shopId: string,
    method: string,
    currency: string,
    operator: OperatorIdentity,
  ): Promise<FeeScheduleView | null> {
    if (methodErrors(method).length > 0 || currencyErrors(currency).length > 0) return null;
    return (
      (await this.listFees(shopId, operator)).fees.find((f) => f.method === method && f.currency === currency) ?? null
    );
  }

  @Put('shops/:shopId/fees/:method/:currency')
  @Audited({
    action: 'ledger.fee.set',
    object: 'shop',
    idParam: 'shopId',
    read: { method: 'feeBefore', args: ['shopId', 'method', 'currency'], checkedByRead: ['method', 'currency'] },
  })
  @OpsEndpoint({
    role: 'operator',
    summary: "Set a shop's fee for a method and currency: percent of the amount plus fixed, at least minimum",
    description:
      "percent 0–100; fixed and minimum non-negative, at most the currency's scale; the currency a books currency of the registry (USD, USDT-TRC20); method a method code or `*` for the methods without a line of their own. A fixed part or minimum above an amount is not refused here, but a booking's fee never exceeds its gross: the ledger refuses to book such an operation (dead-lettered naming `fee`, nothing posted; docs/ledger.md).",
    body: { type: SetFeeDto, example: setFeeExample },
    response: { example: feeExample, description: 'The line as it is now' },
    problems: [404, 503],
  })
  async setFee(
    @Param('shopId', uuid('shop')) shopId: string,
    @Param('method') method: string,
    @Param('currency') currency: string,
    @Body() body: SetFeeDto,
    @ActingOperator() operator: OperatorIdentity,
  ): Promise<FeeScheduleView> {
    const fee = { percent: body.percent, fixed: body.fixed, minimum: body.minimum };
    assertValid([...methodErrors(method), ...feeScheduleErrors({ currency, ...fee })]);
    await this.shopMustExist(shopId);
    return this.askLedger<FeeScheduleView>(shopId, LedgerOpsCommandTypes.setFee, operator, {
      shopId,
      method,
      currency,
      ...fee,
    });
  }

  @Delete('shops/:shopId/fees/:method/:currency')
  @HttpCode(204)
  @Audited({
    action: 'ledger.fee.delete',
    object: 'shop',
    idParam: 'shopId',
    read: { method: 'feeBefore', args: ['shopId', 'method', 'currency'], checkedByRead: ['method', 'currency'] },
  })
  @OpsEndpoint({
    role: 'operator',
    summary: "Delete a shop's fee line (its operations are then charged the `*` line, or no fee)",
    status: 204,
    body: { type: DeleteFeeDto, example: deleteFeeExample },
    problems: [404, 503],
  })
  async deleteFee(
    @Param('shopId', uuid('shop')) shopId: string,
    @Param('method') method: string,
    @Param('currency') currency: string,
    @Body() _body: DeleteFeeDto,
    @ActingOperator() operator: OperatorIdentity,
  ): Promise<void> {
    assertValid([...methodErrors(method), ...currencyErrors(currency)]);
    await this.shopMustExist(shopId);
    const r = await this.askLedger<DeletedFee>(shopId, LedgerOpsCommandTypes.deleteFee, operator, {
      shopId,
      method,
      currency,
    });
    if (!r.deleted) throw new ProblemException('notFound', 'No such fee line.');
  }

  @Get('shops/:shopId/settlement')
  @OpsEndpoint({
    summary: "A shop's settlement delay (one day when never set)",
    response: { example: settlementExample },
    problems: [404, 503],
  })
  async getSettlement(
    @Param('shopId', uuid('shop')) shopId: string,
    @ActingOperator() operator: OperatorIdentity,
  ): Promise<SettlementView> {
    await this.shopMustExist(shopId);
    return this.askLedger<SettlementView>(shopId, LedgerOpsCommandTypes.getSettlement, operator, { shopId });
  }

  @Put('shops/:shopId/settlement')
  @Audited({
    action: 'ledger.settlement.set',
    object: 'shop',
    idParam: 'shopId',
    read: { method: 'getSettlement', args: ['shopId'] },
  })
  @OpsEndpoint({
    role: 'operator',
    summary: "Set a shop's settlement delay: how long a credit stays pending (0: available at once)",
    description: 'Applies to the credits booked from now on; one already pending keeps its available-on.',
    body: { type: SetSettlementDto, example: setSettlementExample },
    response: { example: settlementExample, description: 'The delay as it is now' },
    problems: [404, 503],
  })
  async setSettlement(
    @Param('shopId', uuid('shop')) shopId: string,
    @Body() body: SetSettlementDto,
    @ActingOperator() operator: OperatorIdentity,
  ): Promise<SettlementView> {
    await this.shopMustExist(shopId);
    return this.askLedger<SettlementView>(shopId, LedgerOpsCommandTypes.setSettlement, operator, {
      shopId,
      settlementDelaySeconds: body.settlementDelaySeconds,
    });
  }

  @Post('rates')
  @HttpCode(201)
  @Audited({ action: 'ledger.rate.set', object: 'rate' })
  @OpsEndpoint({
    role: 'operator',
    summary: "Add a pair's rate with its validity (its source: operator:<operator id>)",
    description:
      'rate > 0; base and quote two different books currencies of the registry; validTo, when given, after validFrom. A completion converts at the latest rate that started by its time and has not ended.',
    status: 201,
    body: { type: SetRateDto, example: setRateExample },
    response: { example: rateExample, nullable: ['validTo'] },
    problems: [503],
  })
  async setRate(@Body() body: SetRateDto, @ActingOperator() operator: OperatorIdentity): Promise<RateView> {
    assertValid(rateErrors(body));
    const rate = {
      base: body.base,
      quote: body.quote,
      rate: body.rate,
      validFrom: new Date(body.validFrom).toISOString(),
      ...(body.validTo ? { validTo: new Date(body.validTo).toISOString() } : {}),
    };
    return this.askLedger<RateView>(`${body.base}/${body.quote}`, LedgerOpsCommandTypes.setRate, operator, rate);
  }

  @Get('rates')
  @OpsEndpoint({
    summary: 'Rates, newest validity first (at most 100), of a pair or of all',
    response: { example: rateListExample, nullable: ['validTo'] },
    problems: [400, 503],
  })
  async listRates(@Query() q: ListRatesDto, @ActingOperator() operator: OperatorIdentity): Promise<RateListView> {
    return this.askLedger<RateListView>(
      `${q.base ?? '*'}/${q.quote ?? '*'}`,
      LedgerOpsCommandTypes.listRates,
      operator,
      { ...(q.base ? { base: q.base } : {}), ...(q.quote ? { quote: q.quote } : {}) },
    );
  }
}
