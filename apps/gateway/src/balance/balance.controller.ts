import { Controller, Get, Inject, Query, UseGuards } from '@nestjs/common';
import { ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import {
  BalanceTransactionPage,
  BalanceView,
  GetBalanceQuery,
  LedgerCommandTypes,
  ListBalanceTransactionsQuery,
  Topics,
} from '@payments/contracts';
import { KafkaRequestClient } from '@payments/messaging';
import { ask, MerchantEndpoint } from '@payments/merchant-admin';
import { CurrentShop, MerchantAuthGuard, ShopPrincipal } from '../auth/merchant-auth.guard';
import { REQUEST_CLIENT } from '../tokens';
import { balanceExample, balanceTransactionsExample } from './balance.examples';

const DEFAULT_LIMIT = 20;

export class ListBalanceTransactionsDto {
  @ApiPropertyOptional({
    default: DEFAULT_LIMIT,
    minimum: 1,
    maximum: 100,
    description: 'At most this many transactions.',
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'must be a whole number' })
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({ description: 'The `nextCursor` of the previous page.' })
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,200}$/, { message: 'must be the nextCursor of a previous page' })
  cursor?: string;
}

/**
 * The shop's books (issue 29, docs/ledger.md), read from the ledger by request-reply: its
 * balances per currency and its ledger transactions. The gateway keeps none of it.
 */
@ApiTags('balance')
@UseGuards(MerchantAuthGuard)
@Controller()
export class BalanceController {
  constructor(@Inject(REQUEST_CLIENT) private readonly client: KafkaRequestClient) {}

  @Get(['balance', 'api/v1/balance'])
  @MerchantEndpoint({
    summary: "Retrieve Balance: the shop's balances, one per currency (available, pending, reserved, owed)",
    description:
      'A balance is kept in the currency the orders declared in `recipient.merchantBalance` (the order ' +
      'currency when absent); a token on another network is another currency (`USDT-TRC20`). `pending` ' +
      "becomes `available` after the shop's settlement delay; `reserved` is held for payouts on their way out. " +
      '`owed` is what the shop owes the service in that currency (a P2P fee, or a refund, its available ' +
      'balance could not cover), never negative; it is not taken from `available` or `pending`, which never ' +
      'go below zero. It is paid first from the next credits as they settle: a settlement moves what is owed ' +
      'out of `pending` and only the rest into `available`. A currency the shop only owes in is listed with ' +
      'zeros and its `owed`.',
    response: { example: balanceExample },
    problems: [503],
  })
  balance(@CurrentShop() shop: ShopPrincipal): Promise<BalanceView> {
    const query: GetBalanceQuery = { shopId: shop.shopId };
    return ask<BalanceView>(this.client, Topics.ledgerCommands, shop.shopId, LedgerCommandTypes.getBalance, query);
  }

  @Get(['balance/transactions', 'api/v1/balance/transactions'])
  @MerchantEndpoint({
    summary: "List Balance Transactions: the shop's ledger transactions, newest first",
    description:
      'Each transaction names its source object, its gross, fee and net in the operation currency, what it ' +
      'moved the balance by (`amount`, signed, in `currency`), the rate of a conversion and, for a credit, ' +
      'when it becomes available. A settlement moves the credits of one currency that came due together ' +
      '(`credits`, how many; its source is the settlement itself). One that paid what the shop owed names the part that did (`repaid`, ' +
      'in `currency`): `amount` left `pending`, `amount` − `repaid` reached `available`. Read on with `?cursor=` ' +
      'the `nextCursor` until it is null.',
    response: { example: balanceTransactionsExample, nullable: ['nextCursor'] },
    problems: [400, 503],
  })
  transactions(
    @CurrentShop() shop: ShopPrincipal,
    @Query() q: ListBalanceTransactionsDto,
  ): Promise<BalanceTransactionPage> {
    const query: ListBalanceTransactionsQuery = {
      shopId: shop.shopId,
      limit: q.limit ?? DEFAULT_LIMIT,
      ...(q.cursor ? { cursor: q.cursor } : {}),
    };
    return ask<BalanceTransactionPage>(
      this.client,
      Topics.ledgerCommands,
      shop.shopId,
      LedgerCommandTypes.listTransactions,
      query,
    );
  }
}
