import { Body, Controller, Get, HttpCode, Inject, Param, ParseUUIDPipe, Post, Query, UseGuards } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsIn, IsOptional, IsString, IsUUID, Length } from 'class-validator';
import {
  ListTransfersForOperatorQuery,
  OperatorIdentity,
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
  asOperator,
  commandTopic,
} from '@payments/contracts';
import { KafkaRequestClient } from '@payments/messaging';
import { ProblemException } from '@payments/platform';
import { ActingOperator } from '../auth/acting-operator.decorator';
import { OpsAuthGuard } from '../auth/ops-auth.guard';
import { Audited } from '../operators/audited.decorator';
import { ask } from '@payments/merchant-admin';
import { OpsEndpoint } from '@payments/merchant-admin';
import {
  p2pAnswerShapes,
  p2pExample,
  payoutAnswerShapes,
  payoutExample,
  resolvedP2pExample,
  resolvedPayoutExample,
  resolveTransferExample,
} from '@payments/merchant-admin';
import { REQUEST_CLIENT } from '../tokens';
import { CursorPageDto } from './ops.dto';
import { OverviewService, TransferAttempt } from '../overview/overview.service';

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

export class ListTransfersDto extends CursorPageDto {
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

const attemptsResponse = {
  example: {
    items: [
      {
        dispatchId: 'b1e0c6a2-5d8f-4c3e-9a71-2f4d6e8b0c13',
        provider: 'sandbox',
        status: 'accepted',
        sends: 1,
        providerPaymentId: 'sbx_9f2c41d7',
        lastError: null,
        createdAt: '2026-11-24T10:15:00.000Z',
        updatedAt: '2026-11-24T10:15:01.250Z',
      },
    ],
  },
  variants: [
    {
      items: [
        {
          dispatchId: 'c2f1d7b3-6e9a-4d4f-8b82-3a5e7f9c1d24',
          provider: 'sandbox',
          status: 'pending',
          sends: 2,
          providerPaymentId: null,
          lastError: 'provider answered HTTP 503',
          createdAt: '2026-11-24T10:15:00.000Z',
          updatedAt: '2026-11-24T10:15:30.000Z',
        },
      ],
    },
  ],
  nullable: ['providerPaymentId', 'lastError'],
  description:
    'Each send to the provider: its status (pending, accepted, timed_out, refused, gave_up, skipped), how many ' +
    'times it was sent, the provider payment id once accepted and the last error',
};

/**
 * Money going out in need_action (a mismatch, or a provider that never answered) is settled only by
 * an operator who checked with the provider (docs/decisions.md 46).
 */
@UseGuards(OpsAuthGuard)
@Controller('ops/v1')
export class OpsTransfersController {
  constructor(
    @Inject(REQUEST_CLIENT) private readonly client: KafkaRequestClient,
    private readonly reads: OverviewService,
  ) {}

  private async attempts(kind: 'payouts' | 'p2p', id: string): Promise<{ items: TransferAttempt[] }> {
    const items = await this.reads.transferAttempts(kind, id);
    if (!items) throw new ProblemException('unavailable', 'The attempts cannot be read right now; retry.');
    return { items };
  }

  @Get('payouts/:payoutId/attempts')
  @OpsEndpoint({
    summary: "A payout's sends to its provider (its dispatch rows), oldest first; none for an unknown id",
    response: attemptsResponse,
    problems: [404, 503],
  })
  payoutAttempts(@Param('payoutId', uuid('payout')) payoutId: string): Promise<{ items: TransferAttempt[] }> {
    return this.attempts('payouts', payoutId);
  }

  @Get('p2p/:p2pId/attempts')
  @OpsEndpoint({
    summary: "A P2P transaction's sends to its provider (its dispatch rows), oldest first; none for an unknown id",
    response: attemptsResponse,
    problems: [404, 503],
  })
  p2pAttempts(@Param('p2pId', uuid('P2P transaction')) p2pId: string): Promise<{ items: TransferAttempt[] }> {
    return this.attempts('p2p', p2pId);
  }

  @Get('payouts')
  @OpsEndpoint({
    summary: "Any shop's payouts, newest first: by id, status, shop or merchant payout id (card numbers masked)",
    response: page(payoutAnswerShapes, payoutExample),
    problems: [400, 503],
  })
  listPayouts(@Query() q: ListTransfersDto, @ActingOperator() operator: OperatorIdentity): Promise<PayoutPage> {
    return ask<PayoutPage>(
      this.client,
      commandTopic('payouts', 'operator'),
      q.shopId ?? q.id ?? 'list',
      PayoutCommandTypes.listForOperator,
      asOperator(operator, listQuery(q)),
    );
  }

  @Get('p2p')
  @OpsEndpoint({
    summary: "Any shop's P2P transactions, newest first: by id, status, shop or merchant P2P id (card numbers masked)",
    response: page(p2pAnswerShapes, p2pExample),
    problems: [400, 503],
  })
  listP2p(@Query() q: ListTransfersDto, @ActingOperator() operator: OperatorIdentity): Promise<P2pPage> {
    return ask<P2pPage>(
      this.client,
      commandTopic('p2p', 'operator'),
      q.shopId ?? q.id ?? 'list',
      P2pCommandTypes.listForOperator,
      asOperator(operator, listQuery(q)),
    );
  }

  /** The audit record's `before`: the payout as the console lists it (card numbers masked). */
  async payoutBefore(payoutId: string, operator: OperatorIdentity): Promise<PayoutView> {
    const found = (await this.listPayouts({ id: payoutId, limit: 1 }, operator)).items[0];
    if (!found) throw new ProblemException('notFound', 'No such payout.');
    return found;
  }

  /** The audit record's `before`: the P2P transaction as the console lists it (card numbers masked). */
  async p2pBefore(p2pId: string, operator: OperatorIdentity): Promise<P2pView> {
    const found = (await this.listP2p({ id: p2pId, limit: 1 }, operator)).items[0];
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
    @ActingOperator() operator: OperatorIdentity,
  ): Promise<PayoutView> {
    const command: ResolvePayoutCommand = asOperator(operator, {
      payoutId,
      action: body.action,
      ...(body.note ? { operatorNote: body.note } : {}),
    });
    return ask<PayoutView>(
      this.client,
      commandTopic('payouts', 'operator'),
      payoutId,
      PayoutCommandTypes.resolve,
      command,
    );
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
    @ActingOperator() operator: OperatorIdentity,
  ): Promise<P2pView> {
    const command: ResolveP2pCommand = asOperator(operator, {
      p2pId,
      action: body.action,
      ...(body.note ? { operatorNote: body.note } : {}),
    });
    return ask<P2pView>(this.client, commandTopic('p2p', 'operator'), p2pId, P2pCommandTypes.resolve, command);
  }
}
