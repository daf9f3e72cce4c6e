import { Controller, Get, UseGuards } from '@nestjs/common';
import { OpsAuthGuard } from '../auth/ops-auth.guard';
import { OpsEndpoint } from '@payments/merchant-admin';
import { Overview, OverviewService } from '../overview/overview.service';
import { overviewExample } from './overview.examples';

/** The console's overview, as JSON: what an operator looks at first. */
@UseGuards(OpsAuthGuard)
@Controller('ops/v1/overview')
export class OpsOverviewController {
  constructor(private readonly overview: OverviewService) {}

  @Get()
  @OpsEndpoint({
    summary:
      'Every instance of every service ready or not (and why), consumer lag and time lag per group, dead letters per topic, backlogs, transitions per minute',
    description:
      '`services`: each instance of each service from its health reports (every 10 s): `ready`, `not_ready` (with ' +
      'the components that are not and why), `not_live` (about to be restarted) or `stale` (no report for three ' +
      'intervals: it stopped without saying so, or cannot reach the broker), and the replies it dropped. ' +
      'Each other figure with its last 15 minutes (a sample every 15 s, kept by this backoffice instance). Lag and dead ' +
      'letters come from the elected Kafka collector: `kafkaCollector` says whether this instance runs it.',
    response: { example: overviewExample, nullable: ['merchantCallbacks'] },
  })
  get(): Promise<Overview> {
    return this.overview.overview();
  }
}
