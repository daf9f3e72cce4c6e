import { Body, Controller, Get, HttpCode, Inject, Param, ParseUUIDPipe, Post, Query, UseGuards } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsInt, IsOptional, IsString, IsUUID, Length, Max, Min } from 'class-validator';
import {
  asOperator,
  AwaitingCreditList,
  AwaitingCreditView,
  commandTopic,
  CreditRelease,
  LedgerOpsCommandTypes,
  OperatorIdentity,
} from '@payments/contracts';
import { MAX_RELEASE_REASON, releaseErrors } from '@payments/ledger-domain';
import { KafkaRequestClient } from '@payments/messaging';
import { ask, assertValid, OpsEndpoint } from '@payments/merchant-admin';
import { ProblemException } from '@payments/platform';
import { ActingOperator } from '../auth/acting-operator.decorator';
import { OpsAuthGuard } from '../auth/ops-auth.guard';
import { Audited } from '../operators/audited.decorator';
import { REQUEST_CLIENT } from '../tokens';
import {
  awaitingCreditExample,
  awaitingCreditsExample,
  creditReleaseExample,
  releaseRequestExample,
} from './awaiting-credits.examples';

const LEDGER = () => commandTopic('ledger', 'operator');
const ALL = 'awaiting-credits';

const creditIdPipe = () =>
  new ParseUUIDPipe({ exceptionFactory: () => new ProblemException('notFound', 'No such credit.') });

export class ListAwaitingCreditsDto {
  @ApiPropertyOptional({ format: 'uuid', description: "One shop's credits; every shop's without it." })
  @IsOptional()
  @IsUUID('all', { message: 'must be a shop id (UUID)' })
  shopId?: string;

  @ApiPropertyOptional({ default: 100, minimum: 1, maximum: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;
}

/** An admin's release of a parked credit (decision 344). */
export class ReleaseCreditDto {
  @ApiProperty({
    example: releaseRequestExample.reason,
    description: 'What was fixed: mandatory, kept with the release in the ledger and in the audit log',
  })
  @IsDefined()
  @IsString()
  @Length(1, MAX_RELEASE_REASON)
  reason: string;
}

/**
 * The credits waiting in a shop's suspense for a rate (decision 304), and an admin's release of a
 * parked one back to the conversion queue (decision 344): read from and sent to the ledger on
 * `ledger.ops-commands` with the acting operator (decision 301), the release checked by the
 * ledger's own rule (a 400 naming `reason` sends nothing), refused by the ledger too for a
 * non-admin, and audited with the credit before and the release after.
 */
@UseGuards(OpsAuthGuard)
@Controller('ops/v1/awaiting-credits')
export class OpsAwaitingCreditsController {
  constructor(@Inject(REQUEST_CLIENT) private readonly client: KafkaRequestClient) {}

  private askLedger<T>(key: string, type: string, operator: OperatorIdentity, payload: object): Promise<T> {
    return ask<T>(this.client, LEDGER(), key, type, asOperator(operator, payload));
  }

  @Get()
  @OpsEndpoint({
    summary: 'Credits waiting in suspense for a rate, parked ones with why, oldest first',
    description:
      "A completion across currencies with no rate waits in the shop's suspense (docs/ledger.md); the conversion sweep converts it once its pair has a rate. A `parked` one is left alone: `refund hold` while a refund's hold took all of it (its finish releases it), `conversion failed: …` until an admin releases it. `total` counts them all; at most `limit` are listed.",
    response: { example: awaitingCreditsExample, nullable: ['balanceCurrency', 'parked', 'parkedAt'] },
    problems: [400, 503],
  })
  list(@Query() q: ListAwaitingCreditsDto, @ActingOperator() operator: OperatorIdentity): Promise<AwaitingCreditList> {
    return this.askLedger<AwaitingCreditList>(q.shopId ?? ALL, LedgerOpsCommandTypes.listAwaitingCredits, operator, {
      ...(q.shopId ? { shopId: q.shopId } : {}),
      limit: q.limit ?? 100,
    });
  }

  @Get(':creditId')
  @OpsEndpoint({
    summary: 'One credit waiting in suspense for a rate',
    description: 'A 404 for a credit that waits no more (converted, or refunded in full) or never did.',
    response: { example: awaitingCreditExample, nullable: ['balanceCurrency', 'parked', 'parkedAt'] },
    problems: [404, 503],
  })
  async one(
    @Param('creditId', creditIdPipe()) creditId: string,
    @ActingOperator() operator: OperatorIdentity,
  ): Promise<AwaitingCreditView> {
    const found = await this.askLedger<AwaitingCreditList>(
      creditId,
      LedgerOpsCommandTypes.listAwaitingCredits,
      operator,
      { creditId, limit: 1 },
    );
    const credit = found.items[0];
    if (!credit) throw new ProblemException('notFound', 'No credit waits for a rate with that id.');
    return credit;
  }

  @Post(':creditId/release')
  @HttpCode(200)
  @Audited({
    action: 'ledger.credit.release',
    object: 'credit',
    idParam: 'creditId',
    read: { method: 'one', args: ['creditId'] },
  })
  @OpsEndpoint({
    role: 'admin',
    summary: 'Release a parked credit back to the conversion queue, with a mandatory reason',
    description:
      "Un-parks a credit the conversion sweep left alone (decision 344): the next sweep converts it at the rate in force, or parks it again with the new error. It moves no money. Fix the cause first (the error says what failed). A credit that is not parked is answered with `released: false` and nothing changes, so a retry is harmless; one parked while a refund's hold is open is refused with 422 naming `creditId` (the hold's finish releases it); one that waits no more is a 404. A blank reason is a 400 naming `reason`.",
    body: { type: ReleaseCreditDto, example: releaseRequestExample },
    response: { example: creditReleaseExample, nullable: ['balanceCurrency', 'parked', 'parkedAt', 'wasParked'] },
    problems: [404, 422, 503],
  })
  release(
    @Param('creditId', creditIdPipe()) creditId: string,
    @Body() body: ReleaseCreditDto,
    @ActingOperator() operator: OperatorIdentity,
  ): Promise<CreditRelease> {
    assertValid(releaseErrors(body));
    return this.askLedger<CreditRelease>(creditId, LedgerOpsCommandTypes.releaseCredit, operator, {
      creditId,
      reason: body.reason.trim(),
    });
  }
}
