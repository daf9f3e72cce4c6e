import { Controller, Get, UseGuards } from '@nestjs/common';
import { OpsEndpoint } from '@payments/merchant-admin';
import { OpsAuthGuard } from '../auth/ops-auth.guard';
import { ProvidersReport, ProvidersService } from '../overview/providers.service';
import { routeEveryConditionExample } from '../routing/routes.examples';
import { providersExample, providersPartialExample } from './providers.examples';

/** How each provider is doing (issue 30, decision 330), as JSON: the console's Providers panel. */
@UseGuards(OpsAuthGuard)
@Controller('ops/v1/providers')
export class OpsProvidersController {
  constructor(private readonly providers: ProvidersService) {}

  @Get()
  @OpsEndpoint({
    summary: "Each provider's sends, answers, success rate and latency over the last hour and day, by kind",
    description:
      '`sends`: per provider, kind (`payment`, `payout`, `p2p`) and window (`1h`, `24h`), the answers recorded on ' +
      'the dispatch rows last sent in the window (decision 329): `accepted`, `refused`, `unavailable` (sent again), ' +
      '`timedOut`; `successRate` = accepted / sends; `p50Ms` / `p99Ms`, the send latency (nearest rank); ' +
      '`lastErrorAt`, the last send not accepted. A send whose adapter failed before an answer is only in the ' +
      '`payments_provider_sends_total` metric (`error`). `callsIn`: payments a provider took on its own page or app ' +
      'and told us about (Click, Payme), from the orders attempts no dispatch row sent, by their status. ' +
      '`unavailable` names what could not be read (a service not deployed or migrated yet). `routes`: every ' +
      "shop's route per method (decision 320), read-only (decision 331).",
    response: {
      example: providersExample,
      // Every condition a route step may have: its members join the answer's schema.
      variants: [providersPartialExample, { ...providersExample, routes: [routeEveryConditionExample] }],
      nullable: ['successRate', 'p50Ms', 'p99Ms', 'lastErrorAt', 'lastFailedAt'],
    },
  })
  get(): Promise<ProvidersReport> {
    return this.providers.report();
  }
}
