import {
  Body,
  Controller,
  Get,
  HttpCode,
  Inject,
  Logger,
  Param,
  ParseUUIDPipe,
  Post,
  Query,
  UseGuards,
} from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsDefined,
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import {
  DeliveryDetailView,
  DeliveryPage,
  DeliveryStatuses,
  DeliveryStatus,
  DeliveryView,
  ListDeliveriesQuery,
  MerchantCallbackCommandTypes,
  OperatorIdentity,
  ReplayDeliveriesCommand,
  ReplayResult,
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
import { REQUEST_CLIENT } from '../tokens';
import {
  deliveryAnswerShapes,
  deliveryDetailExample,
  deliveryPageExample,
  replayedDeliveryExample,
  replayManyExample,
  replayOneExample,
  replayResultExample,
} from './callbacks.examples';

const deliveryIdPipe = new ParseUUIDPipe({
  exceptionFactory: () => new ProblemException('notFound', 'No such delivery.'),
});

export class ListDeliveriesDto {
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all', { message: 'must be a shop id (UUID)' })
  shopId?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Order, payout or P2P id.' })
  @IsOptional()
  @IsUUID('all', { message: 'must be an order, payout or P2P id (UUID)' })
  objectId?: string;

  @ApiPropertyOptional({ enum: DeliveryStatuses })
  @IsOptional()
  @IsIn(DeliveryStatuses)
  status?: DeliveryStatus;

  @ApiPropertyOptional({ default: 50, minimum: 1, maximum: 200 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;

  @ApiPropertyOptional({ description: 'The nextCursor of the previous page.' })
  @IsOptional()
  @Matches(/^[0-9]{1,19}$/, { message: 'must be the nextCursor of a previous page' })
  cursor?: string;
}

export class ReplayDeliveriesDto {
  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    description: 'The deliveries to replay; or give shopId with filters.',
  })
  @ValidateIf((o: ReplayDeliveriesDto) => o.shopId === undefined || o.deliveryIds !== undefined)
  @IsDefined({ message: 'give deliveryIds, or a shopId with status and/or since' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(1000)
  @IsUUID('all', { each: true, message: 'each must be a delivery id (UUID)' })
  deliveryIds?: string[];

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all', { message: 'must be a shop id (UUID)' })
  shopId?: string;

  @ApiPropertyOptional({
    enum: DeliveryStatuses,
    description: 'With shopId: only deliveries in this status (e.g. failed).',
  })
  @IsOptional()
  @IsIn(DeliveryStatuses)
  status?: DeliveryStatus;

  @ApiPropertyOptional({
    example: '2026-11-20T00:00:00Z',
    description: 'With shopId: only deliveries queued at or after this time.',
  })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'must be an ISO 8601 timestamp' })
  since?: string;
}

export class ReplayOneDto {
  @ApiPropertyOptional({
    example: 'Merchant fixed their endpoint; resend',
    description: "Why it is replayed; kept in the backoffice's log for the audit trail.",
  })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  reason?: string;
}

export class ReplayResultDto {
  @ApiProperty() replayed: number;
  @ApiProperty({ type: [String] }) deliveryIds: string[];
}

/**
 * Technical support: the merchant callback log and replays. Answered by merchant-callbacks over
 * `merchant-callbacks.commands`; a replay re-sends with the same eventId and a fresh signature.
 */
@UseGuards(OpsAuthGuard)
@Controller('ops/v1/callbacks')
export class OpsCallbacksController {
  private readonly logger = new Logger(OpsCallbacksController.name);

  constructor(@Inject(REQUEST_CLIENT) private readonly client: KafkaRequestClient) {}

  @Get()
  @OpsEndpoint({
    summary: 'List merchant callback deliveries, newest first (filters: shopId, objectId, status; limit and cursor)',
    response: { ...deliveryAnswerShapes, example: deliveryPageExample },
    problems: [400, 503],
  })
  list(@Query() q: ListDeliveriesDto, @ActingOperator() operator: OperatorIdentity): Promise<DeliveryPage> {
    const query: ListDeliveriesQuery = {
      limit: q.limit ?? 50,
      ...(q.shopId ? { shopId: q.shopId } : {}),
      ...(q.objectId ? { objectId: q.objectId } : {}),
      ...(q.status ? { status: q.status } : {}),
      ...(q.cursor ? { cursor: q.cursor } : {}),
    };
    return ask<DeliveryPage>(
      this.client,
      commandTopic('merchant-callbacks', 'operator'),
      q.shopId ?? q.objectId ?? 'all',
      MerchantCallbackCommandTypes.list,
      asOperator(operator, query),
    );
  }

  @Post('replay')
  @HttpCode(200)
  @Audited({ action: 'delivery.replay-many', object: 'shop', idBody: 'shopId' })
  @OpsEndpoint({
    role: 'operator',
    summary: "Replay many deliveries: by ids, or a shop's by status and/or since",
    body: { type: ReplayDeliveriesDto, example: replayManyExample },
    response: { ...deliveryAnswerShapes, example: replayResultExample },
    problems: [503],
  })
  replayMany(@Body() body: ReplayDeliveriesDto, @ActingOperator() operator: OperatorIdentity): Promise<ReplayResult> {
    const command: ReplayDeliveriesCommand = {
      ...(body.deliveryIds ? { deliveryIds: body.deliveryIds } : {}),
      ...(body.shopId ? { shopId: body.shopId } : {}),
      ...(body.status ? { status: body.status } : {}),
      ...(body.since ? { since: new Date(body.since).toISOString() } : {}),
    };
    return ask<ReplayResult>(
      this.client,
      commandTopic('merchant-callbacks', 'operator'),
      body.shopId ?? 'replay',
      MerchantCallbackCommandTypes.replayMany,
      asOperator(operator, command),
    );
  }

  @Get(':deliveryId')
  @OpsEndpoint({
    summary: 'One delivery with its body and every attempt (time, response status or error, latency)',
    response: { ...deliveryAnswerShapes, example: deliveryDetailExample },
    problems: [404, 503],
  })
  get(
    @Param('deliveryId', deliveryIdPipe) deliveryId: string,
    @ActingOperator() operator: OperatorIdentity,
  ): Promise<DeliveryDetailView> {
    return ask<DeliveryDetailView>(
      this.client,
      commandTopic('merchant-callbacks', 'operator'),
      deliveryId,
      MerchantCallbackCommandTypes.get,
      asOperator(operator, { deliveryId }),
    );
  }

  @Post(':deliveryId/replay')
  @HttpCode(200)
  @Audited({
    action: 'delivery.replay',
    object: 'delivery',
    idParam: 'deliveryId',
    read: { method: 'get', args: ['deliveryId'] },
  })
  @OpsEndpoint({
    role: 'operator',
    summary: 'Replay one delivery: sent again with the same eventId and a fresh signature',
    body: { type: ReplayOneDto, example: replayOneExample },
    response: { ...deliveryAnswerShapes, example: replayedDeliveryExample },
    problems: [404, 409, 503],
  })
  replay(
    @Param('deliveryId', deliveryIdPipe) deliveryId: string,
    @Body() body: ReplayOneDto = {},
    @ActingOperator() operator: OperatorIdentity,
  ): Promise<DeliveryView> {
    this.logger.log(
      `replay of delivery ${deliveryId} requested${body?.reason ? `: ${JSON.stringify(body.reason)}` : ''}`,
    );
    return ask<DeliveryView>(
      this.client,
      commandTopic('merchant-callbacks', 'operator'),
      deliveryId,
      MerchantCallbackCommandTypes.replay,
      asOperator(operator, { deliveryId }),
    );
  }
}
