import { Body, Controller, Get, HttpCode, Inject, Param, ParseUUIDPipe, Post, Query, UseGuards } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsIn, IsInt, IsOptional, IsString, IsUUID, Length, Matches, Max, Min } from 'class-validator';
import {
  ListTransfersForOperatorQuery,
  P2pCommandTypes,
  P2pPage,
  P2pView,
  PayoutPage,
  TransferStatus,
  TransferStatuses,
  PayoutCommandTypes,
  PayoutView,
  ResolveP2pCommand,
  ResolvePayoutCommand,
  Topics,
} from '@payments/contracts';
import { KafkaRequestClient } from '@payments/messaging';
import { ProblemException } from '@payments/platform';
import { OpsAuthGuard } from '../auth/ops-auth.guard';
import { Audited } from '../operators/audited.decorator';
import { ask } from '../messaging/domain-requests';
import { OpsEndpoint } from '../openapi/endpoint.decorator';
import {
  p2pAnswerShapes,
  p2pExample,
  payoutAnswerShapes,
  payoutExample,
  resolvedP2pExample,
  resolvedPayoutExample,
  resolveTransferExample,
} from '../payouts/payouts.examples';
import { REQUEST_CLIENT } from '../tokens';

const uuid = (what: string) =>
  new ParseUUIDPipe({ exceptionFactory: () => new ProblemException('notFound', `No such ${what}.`) });

export class ResolveTransferDto {
  @ApiProperty({
    enum: ['complete', 'fail'],
    description: 'What the operator found out from the provider: the money went out (complete) or it did not (fail).',
  })
  @IsDefined()
  @IsIn(['complete', 'fail'])
  action: 'complete' | 'fail';

  @ApiPropertyOptional({ example: 'Provider confirmed the payee was credited 90.18 USD' })
  @IsOptional()
  @IsString()
  @Length(1, 1024)
  note?: string;
}

export class ListTransfersDto {
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all', { message: 'must be an id (UUID)' })
  id?: string;

  @ApiPropertyOptional({ enum: TransferStatuses })
  @IsOptional()
  @IsIn(TransferStatuses)
  status?: TransferStatus;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all', { message: 'must be a shop id (UUID)' })
  shopId?: string;

  @ApiPropertyOptional({ description: "The merchant's own id (merchantPayoutId or merchantP2pId)." })
  @IsOptional()
  @IsString()
  @Length(1, 128)
  merchantId?: string;

  @ApiPropertyOptional({ default: 50, minimum: 1, maximum: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({ description: 'The nextCursor of the previous page.' })
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,200}$/, { message: 'must be the nextCursor of a previous page' })
  cursor?: string;
}

function listQuery(q: ListTransfersDto): ListTransfersForOperatorQuery {
  return {
    limit: q.limit ?? 50,
    ...(q.id ? { id: q.id } : {}),
    ...(q.status ? { status: q.status } : {}),
    ...(q.shopId ? { shopId: q.shopId } : {}),
    ...(q.merchantId ? { merchantId: q.merchantId } : {}),
    ...(q.cursor ? { cursor: q.cursor } : {}),
  };
}

const page = (shapes: { variants: unknown[]; open?: string[] }, example: unknown) => ({
  example: { items: [example], nextCursor: null },
  variants: shapes.variants.map((v) => ({ items: [v], nextCursor: 'MjAyNi0xMS0yNFQxMDoxNTowMC4wMDBa' })),
  nullable: ['nextCursor'],
  ...(shapes.open ? { open: shapes.open } : {}),
  description: 'A page, newest first',
});

/**
 * Money going out in need_action (a mismatch, or a provider that never answered) is settled only by
 * an operator who checked with the provider (docs/decisions.md).
 */
@UseGuards(OpsAuthGuard)
@Controller('ops/v1')
export class OpsTransfersController {
  constructor(@Inject(REQUEST_CLIENT) private readonly client: KafkaRequestClient) {}

  @Get('payouts')
  @OpsEndpoint({
    summary: "Any shop's payouts, newest first: by id, status, shop or merchant payout id (card numbers masked)",
    response: page(payoutAnswerShapes, payoutExample),
    problems: [400, 503],
  })
  listPayouts(@Query() q: ListTransfersDto): Promise<PayoutPage> {
    return ask<PayoutPage>(
      this.client,
      Topics.payoutsCommands,
      q.shopId ?? q.id ?? 'list',
      PayoutCommandTypes.listForOperator,
      listQuery(q),
    );
  }

  @Get('p2p')
  @OpsEndpoint({
    summary: "Any shop's P2P transactions, newest first: by id, status, shop or merchant P2P id (card numbers masked)",
    response: page(p2pAnswerShapes, p2pExample),
    problems: [400, 503],
  })
  listP2p(@Query() q: ListTransfersDto): Promise<P2pPage> {
    return ask<P2pPage>(
      this.client,
      Topics.p2pCommands,
      q.shopId ?? q.id ?? 'list',
      P2pCommandTypes.listForOperator,
      listQuery(q),
    );
  }

  /** The audit record's `before`: the payout as the console lists it (card numbers masked). */
  async payoutBefore(payoutId: string): Promise<PayoutView> {
    const found = (await this.listPayouts({ id: payoutId, limit: 1 })).items[0];
    if (!found) throw new ProblemException('notFound', 'No such payout.');
    return found;
  }

  /** The audit record's `before`: the P2P transaction as the console lists it (card numbers masked). */
  async p2pBefore(p2pId: string): Promise<P2pView> {
    const found = (await this.listP2p({ id: p2pId, limit: 1 })).items[0];
    if (!found) throw new ProblemException('notFound', 'No such P2P transaction.');
    return found;
  }

  @Post('payouts/:payoutId/resolve')
  @HttpCode(200)
  @Audited({
    action: 'payout.resolve',
    object: 'payout',
    idParam: 'payoutId',
    read: { method: 'payoutBefore', args: ['payoutId'] },
  })
  @OpsEndpoint({
    role: 'operator',
    summary: 'Resolve a payout in need_action by hand: complete or fail it',
    body: { type: ResolveTransferDto, example: resolveTransferExample },
    response: { ...payoutAnswerShapes, example: resolvedPayoutExample },
    problems: [404, 409, 503],
  })
  resolvePayout(
    @Param('payoutId', uuid('payout')) payoutId: string,
    @Body() body: ResolveTransferDto,
  ): Promise<PayoutView> {
    const command: ResolvePayoutCommand = {
      payoutId,
      action: body.action,
      ...(body.note ? { operatorNote: body.note } : {}),
    };
    return ask<PayoutView>(this.client, Topics.payoutsCommands, payoutId, PayoutCommandTypes.resolve, command);
  }

  @Post('p2p/:p2pId/resolve')
  @HttpCode(200)
  @Audited({
    action: 'p2p.resolve',
    object: 'p2p',
    idParam: 'p2pId',
    read: { method: 'p2pBefore', args: ['p2pId'] },
  })
  @OpsEndpoint({
    role: 'operator',
    summary: 'Resolve a P2P transaction in need_action by hand: complete or fail it',
    body: { type: ResolveTransferDto, example: resolveTransferExample },
    response: { ...p2pAnswerShapes, example: resolvedP2pExample },
    problems: [404, 409, 503],
  })
  resolveP2p(
    @Param('p2pId', uuid('P2P transaction')) p2pId: string,
    @Body() body: ResolveTransferDto,
  ): Promise<P2pView> {
    const command: ResolveP2pCommand = {
      p2pId,
      action: body.action,
      ...(body.note ? { operatorNote: body.note } : {}),
    };
    return ask<P2pView>(this.client, Topics.p2pCommands, p2pId, P2pCommandTypes.resolve, command);
  }
}
