import { Controller, Get, UseGuards } from '@nestjs/common';
import { OpsAuthGuard } from '../auth/ops-auth.guard';
import { OpsEndpoint } from '../openapi/endpoint.decorator';
import { Overview, OverviewService } from '../overview/overview.service';
import { overviewExample } from './overview.examples';

/** The console's overview, as JSON: what an operator looks at first. */
@UseGuards(OpsAuthGuard)
@Controller('ops/v1/overview')
export class OpsOverviewController {
  constructor(private readonly overview: OverviewService) {}

  @Get()
  @OpsEndpoint({
    summary: 'Consumer lag and time lag per group, dead letters per topic, backlogs, transitions per minute',
    description:
      'Each figure with its last 15 minutes (a sample every 15 s, kept by this gateway instance). Lag and dead ' +
      'letters come from the elected Kafka collector: `kafkaCollector` says whether this instance runs it.',
    response: { example: overviewExample, nullable: ['merchantCallbacks'] },
  })
  get(): Promise<Overview> {
    return this.overview.overview();
  }
}
