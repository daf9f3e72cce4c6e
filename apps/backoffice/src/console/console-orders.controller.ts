import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ProblemException } from '@payments/platform';
import { OrderPage, OrderStatuses, OrderView } from '@payments/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sessionIdOf } from '../auth/ops-auth.guard';
import { mayAct } from '../operators/operators';
import { ConsoleSessionRepository } from './console-session.repository';
import { ConsolePageService, UUID } from './console-page.service';
import { needActionFragment, needActionPage, orderPage, ordersPage } from './console.pages';
import { en } from './console.strings';

type Reply = FastifyReply;

/** The need_action queue: newest first, 100 at most (the API pages further with its cursor). */
const NEED_ACTION_QUEUE = '/ops/v1/orders?status=need_action&limit=100';

/** The console's orders: the need_action queue, the list with its search, one order with its history. */
@ApiExcludeController()
@Controller('ops/console')
export class ConsoleOrdersController {
  constructor(
    private readonly pages: ConsolePageService,
    private readonly sessions: ConsoleSessionRepository,
  ) {}

  @Get('need-action')
  async needAction(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: Reply): Promise<string | void> {
    const session = await this.pages.session(request, reply);
    if (!session) return;
    return this.pages.render(reply, session, 'need-action', en.needAction.title, async (frame) => {
      const page = await this.pages.call<OrderPage>(request, NEED_ACTION_QUEUE);
      return page && needActionPage(frame, page, mayAct(session.operator.role, 'operator'));
    });
  }

  /** The queue again, for the page's refresh: it changes when another operator resolves an order. */
  @Get('need-action/live')
  async needActionLive(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: Reply): Promise<string> {
    const id = sessionIdOf(request);
    const session = id ? await this.sessions.find(id) : undefined;
    const page = session && (await this.pages.call<OrderPage>(request, NEED_ACTION_QUEUE));
    if (!session || !page) throw new ProblemException('unauthorized', en.errors.sessionEnded);
    this.pages.frame(reply, en.needAction.title);
    return needActionFragment(page, mayAct(session.operator.role, 'operator'));
  }

  @Get('orders')
  async orders(
    @Query('q') q: string | undefined,
    @Query('shopId') shopId: string | undefined,
    @Query('status') status: string | undefined,
    @Query('cursor') cursor: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: Reply,
  ): Promise<string | void> {
    const session = await this.pages.session(request, reply);
    if (!session) return;
    const query = q?.trim().slice(0, 128) || undefined;
    const filter = {
      ...(query ? { q: query } : {}),
      ...(shopId && UUID.test(shopId.trim()) ? { shopId: shopId.trim() } : {}),
      ...(status && (OrderStatuses as readonly string[]).includes(status) ? { status } : {}),
    };
    // An order id goes straight to the order; anything else is a merchant order id.
    if (query && UUID.test(query)) {
      const found = await this.pages.callOrMissing<OrderView>(request, `/ops/v1/orders/${query}`);
      if (found) return void reply.code(303).header('location', `/ops/console/orders/${found.id}`).send();
    }
    const params = new URLSearchParams({
      limit: '50',
      ...(filter.shopId ? { shopId: filter.shopId } : {}),
      ...(filter.status ? { status: filter.status } : {}),
      ...(query && !UUID.test(query) ? { merchantOrderId: query } : {}),
      ...(cursor && /^[A-Za-z0-9_-]{1,200}$/.test(cursor) ? { cursor } : {}),
    });
    return this.pages.render(reply, session, 'orders', en.orders.title, async (frame) => {
      if (query && UUID.test(query))
        return ordersPage(frame, { items: [], nextCursor: null }, filter, en.orders.notFound);
      const page = await this.pages.call<OrderPage>(request, `/ops/v1/orders?${params}`);
      return page && ordersPage(frame, page, filter);
    });
  }

  @Get('orders/:orderId')
  async order(
    @Param('orderId') orderId: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: Reply,
  ): Promise<string | void> {
    const session = await this.pages.session(request, reply);
    if (!session) return;
    return this.pages.render(reply, session, 'orders', en.orders.title, async (frame) => {
      if (!UUID.test(orderId)) throw new ProblemException('notFound', en.orders.notFound);
      const order = await this.pages.call<OrderView>(request, `/ops/v1/orders/${orderId}`);
      const history = await this.pages.history(request, orderId);
      if (!order || !history) return undefined;
      return orderPage(frame, order, history, mayAct(session.operator.role, 'operator'));
    });
  }
}
