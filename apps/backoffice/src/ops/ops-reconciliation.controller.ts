import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { OpsAuthGuard } from '../auth/ops-auth.guard';
import { OpsEndpoint } from '@payments/merchant-admin';
import { Invariant, INVARIANTS } from '../reconciliation/reconciliation.reads';
import { BreachRow, RunRow } from '../reconciliation/reconciliation.repository';
import { ReconciliationService } from '../reconciliation/reconciliation.service';
import { breachesExample } from './reconciliation.examples';

export class ListBreachesDto {
  @ApiPropertyOptional({ enum: INVARIANTS })
  @IsOptional()
  @IsIn(INVARIANTS)
  invariant?: Invariant;

  @ApiPropertyOptional({ default: 100, minimum: 1, maximum: 1000 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;
}

/** The reconciliation's open breaches, oldest first, with the last run's counts (issue 17 item 4). */
@UseGuards(OpsAuthGuard)
@Controller('ops/v1/reconciliation')
export class OpsReconciliationController {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly reconciliation: ReconciliationService,
  ) {}

  @Get('breaches')
  @OpsEndpoint({
    summary: 'Open reconciliation breaches (what, where, since when), oldest first, and what the last run checked',
    response: { example: breachesExample, nullable: ['lastRun'] },
    problems: [400],
  })
  async breaches(@Query() q: ListBreachesDto): Promise<{ lastRun: RunRow | null; breaches: BreachRow[] }> {
    const query = (sql: string, params?: unknown[]) => this.dataSource.query(sql, params);
    const repository = this.reconciliation.repository;
    return {
      lastRun: await repository.lastRun(query),
      breaches: await repository.open(query, q.invariant, q.limit ?? 100),
    };
  }
}
