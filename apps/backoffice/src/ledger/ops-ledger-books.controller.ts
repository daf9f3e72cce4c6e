import {
  Body,
  Controller,
  Get,
  Headers,
  HttpCode,
  Inject,
  Param,
  ParseUUIDPipe,
  Post,
  Query,
  Res,
  UseGuards,
} from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ApiHeader } from '@nestjs/swagger';
import { randomUUID } from 'node:crypto';
import {
  AdjustmentView,
  asOperator,
  BalanceView,
  commandTopic,
  LedgerOpsCommandTypes,
  OperatorIdentity,
  ShopTransactionPage,
} from '@payments/contracts';
import { adjustmentErrors } from '@payments/ledger-domain';
import { KafkaRequestClient } from '@payments/messaging';
import { ask, assertValid, idempotencyKeyOf, OpsEndpoint, ShopRepository } from '@payments/merchant-admin';
import { ProblemException } from '@payments/platform';
import { ActingOperator } from '../auth/acting-operator.decorator';
import { OpsAuthGuard } from '../auth/ops-auth.guard';
import { Audited } from '../operators/audited.decorator';
import { REQUEST_CLIENT } from '../tokens';
import { AdjustmentDto, ListShopTransactionsDto } from './ledger-books.dto';
import {
  adjustmentDebitExample,
  adjustmentExample,
  adjustmentRequestExample,
  shopBalanceExample,
  shopTransactionsExample,
} from './ledger-books.examples';

const uuid = (what: string) =>
  new ParseUUIDPipe({ exceptionFactory: () => new ProblemException('notFound', `No such ${what}.`) });

const LEDGER = () => commandTopic('ledger', 'operator');

/**
 * A shop's books as operators see them, and their manual adjustments (issue 29 item 6, decisions
 * 308 and 309): balances and the statement are read from the ledger on `ledger.ops-commands` with
 * the acting operator (decision 301); an adjustment needs the role admin and a reason, is checked by
 * the ledger's own rules (a 400 naming each field sends nothing), posted by the ledger once per
 * Idempotency-Key, and audited with the balance before and the adjustment after.
 */
@UseGuards(OpsAuthGuard)
@Controller('ops/v1/shops/:shopId')
export class OpsLedgerBooksController {
  constructor(
    private readonly shops: ShopRepository,
    @Inject(REQUEST_CLIENT) private readonly client: KafkaRequestClient,
  ) {}

  private askLedger<T>(shopId: string, type: string, operator: OperatorIdentity, payload: object): Promise<T> {
    return ask<T>(this.client, LEDGER(), shopId, type, asOperator(operator, { shopId, ...payload }));
  }

  private async shopMustExist(shopId: string): Promise<void> {
    if (!(await this.shops.exists(shopId))) throw new ProblemException('notFound', 'No such shop.');
  }

  @Get('balance')
  @OpsEndpoint({
    summary:
      "A shop's balances per currency: available, pending (not settled yet) and reserved (payouts and refunds held)",
    description: 'A currency the shop never had money in is left out.',
    response: { example: shopBalanceExample },
    problems: [404, 503],
  })
  async balance(
    @Param('shopId', uuid('shop')) shopId: string,
    @ActingOperator() operator: OperatorIdentity,
  ): Promise<BalanceView> {
    await this.shopMustExist(shopId);
    return this.askLedger<BalanceView>(shopId, LedgerOpsCommandTypes.getShopBalance, operator, {});
  }

  @Get('balance/transactions')
  @OpsEndpoint({
    summary: "A shop's ledger transactions, newest first, with who posted each manual adjustment and why",
    description:
      'Each with its kind, source object, gross, fee and net (in the operation currency), the amount its balance moved (signed, in the balance currency), the rate of a conversion and when a credit becomes available.',
    response: { example: shopTransactionsExample, nullable: ['nextCursor'] },
    problems: [400, 404, 503],
  })
  async transactions(
    @Param('shopId', uuid('shop')) shopId: string,
    @Query() q: ListShopTransactionsDto,
    @ActingOperator() operator: OperatorIdentity,
  ): Promise<ShopTransactionPage> {
    await this.shopMustExist(shopId);
    return this.askLedger<ShopTransactionPage>(shopId, LedgerOpsCommandTypes.listShopTransactions, operator, {
      limit: q.limit ?? 50,
      ...(q.cursor ? { cursor: q.cursor } : {}),
    });
  }

  @Post('adjustments')
  @HttpCode(201)
  @Audited({
    action: 'ledger.adjustment.post',
    object: 'shop',
    idParam: 'shopId',
    read: { method: 'balance', args: ['shopId'] },
  })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      'Send one: the same key posts once; a retry with it gets the first answer again with `Idempotent-Replayed: true` (as the merchant API does), and the key with another valid adjustment is a 422. A body the API refuses is a 400 whatever the key, and posts nothing. Without a key the backoffice makes one, so only a redelivery inside the service is kept from posting twice.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$', example: 'adj-4411-1' },
  })
  @OpsEndpoint({
    role: 'admin',
    summary: "Post a manual adjustment to a shop's available balance: a signed amount with a mandatory reason",
    description:
      "A positive amount credits the shop's available balance, a negative one debits it, against the service's `adjustments` account of the currency (a `manual_adjustment` ledger transaction; docs/ledger.md). A debit the available balance cannot cover is refused with 422 naming `amount` (with `available` and `currency`), and nothing is posted. An unknown currency, a malformed or zero amount, more decimals than the currency's scale, or a blank reason is a 400 naming the field.",
    status: 201,
    body: { type: AdjustmentDto, example: adjustmentRequestExample, examples: { debit: adjustmentDebitExample } },
    response: {
      example: adjustmentExample,
      description: 'The adjustment as posted (or, for a retry, as first posted)',
    },
    problems: [404, 422, 503],
  })
  async adjust(
    @Param('shopId', uuid('shop')) shopId: string,
    @Body() body: AdjustmentDto,
    @Headers() headers: Record<string, string | string[] | undefined>,
    @ActingOperator() operator: OperatorIdentity,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Omit<AdjustmentView, 'replayed'>> {
    const idempotencyKey = idempotencyKeyOf({ method: 'POST', url: '', headers }) ?? `backoffice:${randomUUID()}`;
    assertValid(adjustmentErrors(body));
    await this.shopMustExist(shopId);
    const { replayed, ...adjustment } = await this.askLedger<AdjustmentView>(
      shopId,
      LedgerOpsCommandTypes.adjustBalance,
      operator,
      { idempotencyKey, currency: body.currency, amount: body.amount, reason: body.reason.trim() },
    );
    // The first answer again, byte for byte, marked the way the merchant API marks a replay.
    if (replayed) reply.header('idempotent-replayed', 'true');
    return adjustment;
  }
}
