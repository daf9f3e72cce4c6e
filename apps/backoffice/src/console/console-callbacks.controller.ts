import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ProblemException } from '@payments/platform';
import { DeliveryDetailView, DeliveryPage, DeliveryStatuses } from '@payments/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { mayAct } from '../operators/operators';
import { ConsolePageService, UUID } from './console-page.service';
import { callbackPage, callbacksPage } from './console.pages';
import { en } from './console.strings';

type Reply = FastifyReply;

/** The console's merchant callbacks: the deliveries, filtered, and one delivery with its attempts. */
@ApiExcludeController()
@Controller('ops/console')
export class ConsoleCallbacksController {
  constructor(private readonly pages: ConsolePageService) {}

  @Get('callbacks')
  async callbacks(
    @Query('shopId') shopId: string | undefined,
    @Query('status') status: string | undefined,
    @Query('cursor') cursor: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: Reply,
  ): Promise<string | void> {
    const session = await this.pages.session(request, reply);
    if (!session) return;
    // Only well-formed filters are passed on; the API would answer anything else with a 400.
    const filter = {
      ...(shopId && UUID.test(shopId.trim()) ? { shopId: shopId.trim() } : {}),
      ...(status && (DeliveryStatuses as readonly string[]).includes(status) ? { status } : {}),
    };
    const query = new URLSearchParams({
      limit: '50',
      ...filter,
      ...(cursor && /^[0-9]{1,19}$/.test(cursor) ? { cursor } : {}),
    });
    return this.pages.render(reply, session, 'callbacks', en.callbacks.title, async (frame) => {
      const page = await this.pages.call<DeliveryPage>(request, `/ops/v1/callbacks?${query}`);
      return page && callbacksPage(frame, page, filter, mayAct(session.operator.role, 'operator'));
    });
  }

  @Get('callbacks/:deliveryId')
  async callback(
    @Param('deliveryId') deliveryId: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: Reply,
  ): Promise<string | void> {
    const session = await this.pages.session(request, reply);
    if (!session) return;
    return this.pages.render(reply, session, 'callbacks', en.callbacks.title, async (frame) => {
      if (!UUID.test(deliveryId)) throw new ProblemException('notFound', 'No such delivery.');
      const delivery = await this.pages.call<DeliveryDetailView>(request, `/ops/v1/callbacks/${deliveryId}`);
      return delivery && callbackPage(frame, delivery, mayAct(session.operator.role, 'operator'));
    });
  }
}
