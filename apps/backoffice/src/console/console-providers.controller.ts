import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PROVIDER_WINDOWS, ProvidersReport, ProviderWindow } from '../overview/providers.service';
import { ConsolePageService } from './console-page.service';
import { providersPage } from './console.pages';
import { en } from './console.strings';

/** The console's Providers panel (issue 30): the figures of GET /ops/v1/providers for one window. */
@ApiExcludeController()
@Controller('ops/console')
export class ConsoleProvidersController {
  constructor(private readonly pages: ConsolePageService) {}

  @Get('providers')
  async providers(
    @Query('window') window: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string | void> {
    const session = await this.pages.session(request, reply);
    if (!session) return;
    // The last hour unless another window the panel knows is asked for.
    const shown: ProviderWindow = window && window in PROVIDER_WINDOWS ? (window as ProviderWindow) : '1h';
    return this.pages.render(reply, session, 'providers', en.providers.title, async (frame) => {
      const report = await this.pages.call<ProvidersReport>(request, '/ops/v1/providers');
      return report && providersPage(frame, report, shown);
    });
  }
}
