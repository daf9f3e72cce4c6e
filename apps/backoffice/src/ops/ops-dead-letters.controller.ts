import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import { topicContracts } from '@payments/contracts';
import { Outbox } from '@payments/messaging';
import { ProblemException } from '@payments/platform';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsDefined,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
} from 'class-validator';
import { DataSource } from 'typeorm';
import { OpsAuthGuard, OpsRequest } from '../auth/ops-auth.guard';
import {
  DeadLetterRepository,
  DeadLetterStatus,
  DeadLetterStatuses,
  DeadLetterView,
} from '../dead-letters/dead-letter.repository';
import { OpsEndpoint } from '@payments/merchant-admin';
import { AuditRepository } from '../operators/audit.repository';
import { Audited } from '../operators/audited.decorator';
import { BACKOFFICE_OUTBOX } from '../tokens';
import {
  deadLetterExample,
  deadLetterPageExample,
  discardedExample,
  discardExample,
  redriveExample,
  redriveResultExample,
} from './dead-letters.examples';

const NULLABLE = ['key', 'eventId', 'type', 'consumerGroup', 'resolvedAt', 'resolvedBy', 'reason', 'nextCursor'];
const ID = /^[0-9]{1,18}$/;

export class ListDeadLettersDto {
  @ApiPropertyOptional({ example: 'provider.events.dlq' })
  @IsOptional()
  @Matches(/^[a-z][a-z0-9.-]{0,100}\.dlq$/, { message: 'must be a dead-letter topic such as provider.events.dlq' })
  topic?: string;

  @ApiPropertyOptional({ enum: DeadLetterStatuses, description: 'open: not redriven nor discarded yet.' })
  @IsOptional()
  @IsIn(DeadLetterStatuses)
  status?: DeadLetterStatus;

  @ApiPropertyOptional({ default: 50, minimum: 1, maximum: 200 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;

  @ApiPropertyOptional({ description: 'The nextCursor of the previous page.' })
  @IsOptional()
  @Matches(ID, { message: 'must be the nextCursor of a previous page' })
  cursor?: string;
}

export class RedriveDto {
  @ApiProperty({ type: [String], example: ['17'], description: 'The dead letters to send back to their topic.' })
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(500)
  @Matches(ID, { each: true, message: 'each must be a dead letter id' })
  ids: string[];

  @ApiPropertyOptional({ example: 'The order exists now; apply the event' })
  @IsOptional()
  @IsString()
  @Length(1, 500)
  reason?: string;
}

export class DiscardDto {
  @ApiProperty({ example: 'A test message from the sandbox; nothing to apply' })
  @IsDefined()
  @IsString()
  @Length(1, 500)
  reason: string;
}

interface RedriveResult {
  redriven: string[];
  skipped: { id: string; status: DeadLetterStatus | 'unknown'; why: string }[];
}

/**
 * A redrive writes only to a contract topic, and only a message that topic carries (decision 177):
 * whatever a dead letter's row says, nothing is sent where its type does not belong.
 */
function carries(topic: string, type: string): boolean {
  return topicContracts.some((c) => c.topic === topic && c.messages.some((m) => m.type === type));
}

/**
 * Dead letters of every `.dlq` topic, as the backoffice copied them (decision 156): list, redrive to
 * the topic they came from (through the backoffice's outbox, in the transaction that marks them; a
 * second redrive is skipped, and the consumer's inbox would ignore a second copy anyway), discard.
 */
@UseGuards(OpsAuthGuard)
@Controller('ops/v1/dead-letters')
export class OpsDeadLettersController {
  constructor(
    private readonly deadLetters: DeadLetterRepository,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(BACKOFFICE_OUTBOX) private readonly outbox: Outbox,
    private readonly audit: AuditRepository,
  ) {}

  @Get()
  @OpsEndpoint({
    summary: 'Dead letters, newest first, with their error and origin (filters: topic, status; limit, cursor)',
    response: { example: deadLetterPageExample, nullable: NULLABLE },
    problems: [400],
  })
  list(@Query() q: ListDeadLettersDto): Promise<{ items: DeadLetterView[]; nextCursor: string | null }> {
    return this.deadLetters.list({
      limit: q.limit ?? 50,
      ...(q.topic ? { topic: q.topic } : {}),
      ...(q.status ? { status: q.status } : {}),
      ...(q.cursor ? { cursor: q.cursor } : {}),
    });
  }

  @Get(':deadLetterId')
  @OpsEndpoint({
    summary: 'One dead letter',
    response: { example: deadLetterExample, nullable: NULLABLE },
    problems: [404],
  })
  async get(@Param('deadLetterId') id: string): Promise<DeadLetterView> {
    const found = ID.test(id) ? await this.deadLetters.get(id) : undefined;
    if (!found) throw new ProblemException('notFound', 'No such dead letter.');
    return found;
  }

  @Post('redrive')
  @HttpCode(200)
  // One record per dead letter redriven, written in the redrive's transaction (decision 182).
  @Audited({ action: 'dead-letter.redrive', object: 'dead-letter', recordsItself: true })
  @OpsEndpoint({
    role: 'operator',
    summary: 'Send dead letters back to the topic they came from (each at most once; the rest are skipped)',
    body: { type: RedriveDto, example: redriveExample },
    response: { example: redriveResultExample },
  })
  async redrive(@Req() request: OpsRequest, @Body() body: RedriveDto): Promise<RedriveResult> {
    const ids = [...new Set(body.ids)];
    return this.dataSource.transaction(async (m) => {
      const rows = await this.deadLetters.forUpdate(m, ids);
      const result: RedriveResult = { redriven: [], skipped: [] };
      for (const id of ids) {
        const row = rows.find((r) => String(r.id) === id);
        if (!row) result.skipped.push({ id, status: 'unknown', why: 'no such dead letter' });
        else if (row.status !== 'open') result.skipped.push({ id, status: row.status, why: `already ${row.status}` });
        else if (!row.envelope) result.skipped.push({ id, status: row.status, why: 'not a valid envelope' });
        else if (!carries(row.original_topic, row.envelope.type))
          result.skipped.push({
            id,
            status: row.status,
            why: `${row.original_topic} is not a contract topic carrying ${row.envelope.type}`,
          });
        else {
          await this.outbox.add(m, [
            { topic: row.original_topic, key: row.key ?? row.envelope.eventId, envelope: row.envelope },
          ]);
          const after = await this.deadLetters.resolve(m, id, 'redriven', request.operator!.name, body.reason ?? null);
          await this.audit.append(
            {
              operator: request.operator!,
              action: 'dead-letter.redrive',
              objectType: 'dead-letter',
              objectId: id,
              before: DeadLetterRepository.view(row),
              after,
              reason: body.reason ?? null,
              request: 'POST /ops/v1/dead-letters/redrive',
            },
            m,
          );
          result.redriven.push(id);
        }
      }
      return result;
    });
  }

  @Post(':deadLetterId/discard')
  @HttpCode(200)
  @Audited({
    action: 'dead-letter.discard',
    object: 'dead-letter',
    idParam: 'deadLetterId',
    read: { method: 'get', args: ['deadLetterId'] },
  })
  @OpsEndpoint({
    role: 'operator',
    summary: 'Discard a dead letter with a reason: it is never redriven (discarding again changes nothing)',
    body: { type: DiscardDto, example: discardExample },
    response: { example: discardedExample, nullable: NULLABLE },
    problems: [404, 409],
  })
  async discard(
    @Req() request: OpsRequest,
    @Param('deadLetterId') id: string,
    @Body() body: DiscardDto,
  ): Promise<DeadLetterView> {
    if (!ID.test(id)) throw new ProblemException('notFound', 'No such dead letter.');
    return this.dataSource.transaction(async (m) => {
      const [row] = await this.deadLetters.forUpdate(m, [id]);
      if (!row) throw new ProblemException('notFound', 'No such dead letter.');
      if (row.status === 'discarded') return DeadLetterRepository.view(row);
      if (row.status === 'redriven')
        throw new ProblemException('conflict', 'This dead letter was redriven; it cannot be discarded.');
      return this.deadLetters.resolve(m, id, 'discarded', request.operator!.name, body.reason);
    });
  }
}
