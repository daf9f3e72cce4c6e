import { Body, Controller, HttpCode, Inject, Param, ParseUUIDPipe, Post, UseGuards } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsIn, IsOptional, IsString, Length } from 'class-validator';
import {
  P2pCommandTypes,
  P2pView,
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
  payoutAnswerShapes,
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

/**
 * Money going out in need_action (a mismatch, or a provider that never answered) is settled only by
 * an operator who checked with the provider (docs/decisions.md).
 */
@UseGuards(OpsAuthGuard)
@Controller('ops/v1')
export class OpsTransfersController {
  constructor(@Inject(REQUEST_CLIENT) private readonly client: KafkaRequestClient) {}

  @Post('payouts/:payoutId/resolve')
  @HttpCode(200)
  @Audited({ action: 'payout.resolve', object: 'payout', idParam: 'payoutId' })
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
  @Audited({ action: 'p2p.resolve', object: 'p2p', idParam: 'p2pId' })
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
