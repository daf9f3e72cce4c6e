import type { TransferAttempt } from '../overview/overview.service';
import {
  Body,
  Controller,
  Get,
  Header,
  HttpCode,
  Logger,
  Param,
  Post,
  Query,
  Req,
  Res,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ApiExcludeController } from '@nestjs/swagger';
import { ProblemException } from '@payments/platform';
import { IsDefined, IsString, Length } from 'class-validator';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import { OpsAuthGuard, OpsRequest, SESSION_COOKIE, sessionCookie, sessionIdOf } from '../auth/ops-auth.guard';
import { OPS_ROLE } from '@payments/merchant-admin';
import { AuditRecord, AuditRepository } from '../operators/audit.repository';
import { Audited } from '../operators/audited.decorator';
import { Overview } from '../overview/overview.service';
import { mayAct } from '../operators/operators';
import {
  DeliveryDetailView,
  DeliveryPage,
  DeliveryStatuses,
  OrderPage,
  OrderStatuses,
  OrderView,
  topicSpecs,
  TransferStatuses,
} from '@payments/contracts';
import { DeadLetterStatuses, DeadLetterView } from '../dead-letters/dead-letter.repository';
import { CONSOLE_SCRIPT, CONSOLE_STYLE } from './console.assets';
import { ConsoleSession, ConsoleSessionRepository, SESSION_HOURS } from './console-session.repository';
import {
  auditPage,
  callbackPage,
  callbacksPage,
  errorPage,
  Frame,
  needActionFragment,
  needActionPage,
  deadLettersPage,
  orderPage,
  ordersPage,
  StatusStep,
  TransferLike,
  transferPage,
  transfersPage,
  overviewFragment,
  overviewPage,
  Page,
  signInPage,
} from './console.pages';
import { en } from './console.strings';

export class SignInDto {
  @IsDefined()
  @IsString()
  @Length(8, 512)
  token: string;
}

/** Only this page's own script and stylesheet, by nonce; nothing inline, nothing from elsewhere. */
function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "connect-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

type Reply = FastifyReply;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The need_action queue: newest first, 100 at most (the API pages further with its cursor). */
const NEED_ACTION_QUEUE = '/ops/v1/orders?status=need_action&limit=100';

/**
 * The operators' console (issue 15 item 3): server-rendered pages on the operators' listener. Every
 * figure a page shows comes from an /ops/v1 route, called here with the operator's own session
 * (so the same guard, roles and audit apply); the page's script sends every action to an /ops/v1
 * route with the session's CSRF token (decision 154).
 */
@ApiExcludeController()
@Controller('ops/console')
export class ConsoleController {
  private readonly logger = new Logger('Console');

  constructor(
    private readonly guard: OpsAuthGuard,
    private readonly sessions: ConsoleSessionRepository,
    private readonly audit: AuditRepository,
    private readonly adapter: HttpAdapterHost,
  ) {}

  @Get('assets/console.js')
  @Header('content-type', 'text/javascript; charset=utf-8')
  script(): string {
    return CONSOLE_SCRIPT;
  }

  @Get('assets/console.css')
  @Header('content-type', 'text/css; charset=utf-8')
  style(): string {
    return CONSOLE_STYLE;
  }

  @Get('sign-in')
  signInForm(@Query('signed-out') signedOut: string | undefined, @Res({ passthrough: true }) reply: Reply): string {
    const frame = this.frame(reply, en.signIn.title);
    return signInPage(frame, signedOut === '1');
  }

  /** The token is checked like a bearer token: the same throttle per address, the same log line. */
  @Post('sign-in')
  @HttpCode(200)
  async signIn(
    @Body() body: SignInDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: Reply,
  ): Promise<{ name: string; role: string }> {
    const operator = await this.guard.authenticate(request.ip, body.token).catch((err: unknown) => {
      // The same refusal, in the words of a person at a sign-in form rather than an API client.
      if (err instanceof ProblemException && err.kind === 'unauthorized')
        throw new ProblemException('unauthorized', en.signIn.wrongToken);
      throw err;
    });
    const session = await this.sessions.create(operator);
    void reply.header('set-cookie', sessionCookie(request, session.id, SESSION_HOURS * 3600));
    await this.audit.append({
      operator,
      action: 'console.sign-in',
      objectType: 'operator',
      objectId: operator.id,
      before: null,
      after: null,
      reason: null,
      request: 'POST /ops/console/sign-in',
    });
    return { name: operator.name, role: operator.role };
  }

  @Post('sign-out')
  @HttpCode(200)
  @UseGuards(OpsAuthGuard)
  @SetMetadata(OPS_ROLE, 'viewer')
  @Audited({ action: 'console.sign-out', object: 'operator' })
  async signOut(@Req() request: OpsRequest, @Res({ passthrough: true }) reply: Reply): Promise<{ id: string }> {
    if (request.consoleSession) await this.sessions.delete(request.consoleSession.id);
    void reply.header('set-cookie', sessionCookie(request, null, 0));
    return { id: request.operator!.id };
  }

  @Get()
  async overview(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: Reply): Promise<string | void> {
    const session = await this.session(request, reply);
    if (!session) return;
    return this.page(reply, session, 'overview', en.overview.title, async (frame) => {
      const data = await this.call<Overview>(request, '/ops/v1/overview');
      return data && overviewPage(frame, data);
    });
  }

  @Get('overview/live')
  async overviewLive(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: Reply): Promise<string | void> {
    const data = await this.call<Overview>(request, '/ops/v1/overview');
    if (!data) throw new ProblemException('unauthorized', en.errors.sessionEnded);
    this.frame(reply, en.overview.title);
    return overviewFragment(data);
  }

  @Get('need-action')
  async needAction(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: Reply): Promise<string | void> {
    const session = await this.session(request, reply);
    if (!session) return;
    return this.page(reply, session, 'need-action', en.needAction.title, async (frame) => {
      const page = await this.call<OrderPage>(request, NEED_ACTION_QUEUE);
      return page && needActionPage(frame, page, mayAct(session.operator.role, 'operator'));
    });
  }

  /** The queue again, for the page's refresh: it changes when another operator resolves an order. */
  @Get('need-action/live')
  async needActionLive(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: Reply): Promise<string> {
    const id = sessionIdOf(request);
    const session = id ? await this.sessions.find(id) : undefined;
    const page = session && (await this.call<OrderPage>(request, NEED_ACTION_QUEUE));
    if (!session || !page) throw new ProblemException('unauthorized', en.errors.sessionEnded);
    this.frame(reply, en.needAction.title);
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
    const session = await this.session(request, reply);
    if (!session) return;
    const query = q?.trim().slice(0, 128) || undefined;
    const filter = {
      ...(query ? { q: query } : {}),
      ...(shopId && UUID.test(shopId.trim()) ? { shopId: shopId.trim() } : {}),
      ...(status && (OrderStatuses as readonly string[]).includes(status) ? { status } : {}),
    };
    // An order id goes straight to the order; anything else is a merchant order id.
    if (query && UUID.test(query)) {
      const found = await this.callOrMissing<OrderView>(request, `/ops/v1/orders/${query}`);
      if (found) return void reply.code(303).header('location', `/ops/console/orders/${found.id}`).send();
    }
    const params = new URLSearchParams({
      limit: '50',
      ...(filter.shopId ? { shopId: filter.shopId } : {}),
      ...(filter.status ? { status: filter.status } : {}),
      ...(query && !UUID.test(query) ? { merchantOrderId: query } : {}),
      ...(cursor && /^[A-Za-z0-9_-]{1,200}$/.test(cursor) ? { cursor } : {}),
    });
    return this.page(reply, session, 'orders', en.orders.title, async (frame) => {
      if (query && UUID.test(query))
        return ordersPage(frame, { items: [], nextCursor: null }, filter, en.orders.notFound);
      const page = await this.call<OrderPage>(request, `/ops/v1/orders?${params}`);
      return page && ordersPage(frame, page, filter);
    });
  }

  @Get('orders/:orderId')
  async order(
    @Param('orderId') orderId: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: Reply,
  ): Promise<string | void> {
    const session = await this.session(request, reply);
    if (!session) return;
    return this.page(reply, session, 'orders', en.orders.title, async (frame) => {
      if (!UUID.test(orderId)) throw new ProblemException('notFound', en.orders.notFound);
      const order = await this.call<OrderView>(request, `/ops/v1/orders/${orderId}`);
      const history = await this.history(request, orderId);
      if (!order || !history) return undefined;
      return orderPage(frame, order, history, mayAct(session.operator.role, 'operator'));
    });
  }

  @Get('payouts')
  payouts(
    @Query('q') q: string | undefined,
    @Query('shopId') shopId: string | undefined,
    @Query('status') status: string | undefined,
    @Query('cursor') cursor: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: Reply,
  ): Promise<string | void> {
    return this.transfers('payouts', { q, shopId, status, cursor }, request, reply);
  }

  @Get('p2p')
  p2p(
    @Query('q') q: string | undefined,
    @Query('shopId') shopId: string | undefined,
    @Query('status') status: string | undefined,
    @Query('cursor') cursor: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: Reply,
  ): Promise<string | void> {
    return this.transfers('p2p', { q, shopId, status, cursor }, request, reply);
  }

  @Get('payouts/:id')
  payout(@Param('id') id: string, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: Reply) {
    return this.transfer('payouts', id, request, reply);
  }

  @Get('p2p/:id')
  p2pOne(@Param('id') id: string, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: Reply) {
    return this.transfer('p2p', id, request, reply);
  }

  /** Payouts and P2P: one list page for both, over GET /ops/v1/payouts and /ops/v1/p2p. */
  private async transfers(
    kind: 'payouts' | 'p2p',
    raw: { q?: string; shopId?: string; status?: string; cursor?: string },
    request: FastifyRequest,
    reply: Reply,
  ): Promise<string | void> {
    const session = await this.session(request, reply);
    if (!session) return;
    const query = raw.q?.trim().slice(0, 128) || undefined;
    const filter = {
      ...(query ? { q: query } : {}),
      ...(raw.shopId && UUID.test(raw.shopId.trim()) ? { shopId: raw.shopId.trim() } : {}),
      ...(raw.status && (TransferStatuses as readonly string[]).includes(raw.status) ? { status: raw.status } : {}),
    };
    const params = new URLSearchParams({
      limit: '50',
      ...(filter.shopId ? { shopId: filter.shopId } : {}),
      ...(filter.status ? { status: filter.status } : {}),
      ...(query ? (UUID.test(query) ? { id: query } : { merchantId: query }) : {}),
      ...(raw.cursor && /^[A-Za-z0-9_-]{1,200}$/.test(raw.cursor) ? { cursor: raw.cursor } : {}),
    });
    return this.page(reply, session, kind, en.transfers[kind].title, async (frame) => {
      const page = await this.call<{ items: TransferLike[]; nextCursor: string | null }>(
        request,
        `/ops/v1/${kind}?${params}`,
      );
      return page && transfersPage(frame, kind, page, filter);
    });
  }

  private async transfer(
    kind: 'payouts' | 'p2p',
    id: string,
    request: FastifyRequest,
    reply: Reply,
  ): Promise<string | void> {
    const session = await this.session(request, reply);
    if (!session) return;
    return this.page(reply, session, kind, en.transfers[kind].title, async (frame) => {
      if (!UUID.test(id)) throw new ProblemException('notFound', `No ${en.transfers[kind].one} has this id.`);
      const page = await this.call<{ items: TransferLike[] }>(request, `/ops/v1/${kind}?id=${id}&limit=1`);
      const [history, attempts] = await Promise.all([
        this.history(request, id),
        this.call<{ items: TransferAttempt[] }>(request, `/ops/v1/${kind}/${id}/attempts`),
      ]);
      if (!page || !history || !attempts) return undefined;
      if (!page.items[0]) throw new ProblemException('notFound', `No ${en.transfers[kind].one} has this id.`);
      return transferPage(frame, kind, page.items[0], history, attempts.items);
    });
  }

  /** Each callback carries one status change: together, an object's history as the merchant saw it. */
  private async history(request: FastifyRequest, objectId: string): Promise<StatusStep[] | undefined> {
    const deliveries = await this.call<DeliveryPage>(request, `/ops/v1/callbacks?objectId=${objectId}&limit=50`);
    if (!deliveries) return undefined;
    const details = await Promise.all(
      deliveries.items.map((d) => this.call<DeliveryDetailView>(request, `/ops/v1/callbacks/${d.id}`)),
    );
    return details
      .filter((d): d is DeliveryDetailView => d !== undefined)
      .map((d) => ({
        d,
        body: d.body as { status?: string; previousStatus?: string; occurredAt?: string; sequence?: number },
      }))
      .sort((a, b) => (a.body.sequence ?? 0) - (b.body.sequence ?? 0))
      .map(({ d, body }) => ({
        at: body.occurredAt ?? d.createdAt,
        from: body.previousStatus ?? null,
        to: body.status ?? d.type,
        deliveryId: d.id,
        delivery: d.status,
      }));
  }

  @Get('callbacks')
  async callbacks(
    @Query('shopId') shopId: string | undefined,
    @Query('status') status: string | undefined,
    @Query('cursor') cursor: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: Reply,
  ): Promise<string | void> {
    const session = await this.session(request, reply);
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
    return this.page(reply, session, 'callbacks', en.callbacks.title, async (frame) => {
      const page = await this.call<DeliveryPage>(request, `/ops/v1/callbacks?${query}`);
      return page && callbacksPage(frame, page, filter, mayAct(session.operator.role, 'operator'));
    });
  }

  @Get('callbacks/:deliveryId')
  async callback(
    @Param('deliveryId') deliveryId: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: Reply,
  ): Promise<string | void> {
    const session = await this.session(request, reply);
    if (!session) return;
    return this.page(reply, session, 'callbacks', en.callbacks.title, async (frame) => {
      if (!UUID.test(deliveryId)) throw new ProblemException('notFound', 'No such delivery.');
      const delivery = await this.call<DeliveryDetailView>(request, `/ops/v1/callbacks/${deliveryId}`);
      return delivery && callbackPage(frame, delivery, mayAct(session.operator.role, 'operator'));
    });
  }

  @Get('dead-letters')
  async deadLetters(
    @Query('topic') topic: string | undefined,
    @Query('status') status: string | undefined,
    @Query('cursor') cursor: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: Reply,
  ): Promise<string | void> {
    const session = await this.session(request, reply);
    if (!session) return;
    const topics = topicSpecs()
      .map((s) => s.name)
      .filter((n) => n.endsWith('.dlq'));
    // Open ones unless asked otherwise: those are what an operator works through.
    const filter = {
      ...(topic && topics.includes(topic) ? { topic } : {}),
      status:
        status === ''
          ? undefined
          : status && (DeadLetterStatuses as readonly string[]).includes(status)
            ? status
            : 'open',
    };
    const query = new URLSearchParams({
      limit: '100',
      ...(filter.topic ? { topic: filter.topic } : {}),
      ...(filter.status ? { status: filter.status } : {}),
      ...(cursor && /^[0-9]{1,18}$/.test(cursor) ? { cursor } : {}),
    });
    return this.page(reply, session, 'dead-letters', en.deadLetters.title, async (frame) => {
      const page = await this.call<{ items: DeadLetterView[]; nextCursor: string | null }>(
        request,
        `/ops/v1/dead-letters?${query}`,
      );
      return page && deadLettersPage(frame, page, topics, filter, mayAct(session.operator.role, 'operator'));
    });
  }

  @Get('audit')
  async auditLog(
    @Query() raw: Record<string, unknown>,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: Reply,
  ): Promise<string | void> {
    const session = await this.session(request, reply);
    if (!session) return;
    // The filters of GET /ops/v1/audit, passed on only when well-formed (the API would answer 400).
    const valid: Record<string, RegExp> = {
      action: /^[a-z][a-z0-9_.-]{0,63}$/,
      objectType: /^[a-z][a-z0-9_-]{0,31}$/,
      objectId: /^[A-Za-z0-9_.:-]{1,200}$/,
      operatorId: /^(ops-token|[0-9a-fA-F-]{36})$/,
      cursor: /^[0-9]{1,19}$/,
    };
    const filter = Object.fromEntries(
      Object.entries(valid)
        // A repeated parameter arrives as an array: it is no filter (decision 179).
        .map(([k]) => [k, typeof raw[k] === 'string' ? raw[k].trim() : ''] as const)
        .filter(([k, v]) => v !== '' && valid[k].test(v)),
    );
    const query = new URLSearchParams({ limit: '50', ...filter });
    return this.page(reply, session, 'audit', en.audit.title, async (frame) => {
      const page = await this.call<{ items: AuditRecord[]; nextCursor: string | null }>(
        request,
        `/ops/v1/audit?${query}`,
      );
      return page && auditPage(frame, page, filter);
    });
  }

  /** A page, or its error page (a 503 in English, not a JSON problem); the sign-in page once the session ended. */
  private async page(
    reply: Reply,
    session: ConsoleSession,
    current: Page,
    title: string,
    render: (frame: Frame) => Promise<string | undefined>,
  ): Promise<string | void> {
    const frame = this.frame(reply, title, session, current);
    try {
      const html = await render(frame);
      if (html === undefined) return this.toSignIn(reply);
      return html;
    } catch (err) {
      const detail = err instanceof ProblemException ? err.detail : en.errors.failed;
      const notFound = err instanceof ProblemException && err.kind === 'notFound';
      if (!notFound)
        this.logger.error(`console page ${current} failed: ${err instanceof Error ? err.message : String(err)}`);
      void reply.code(notFound ? 404 : 503);
      return errorPage(frame, detail);
    }
  }

  /** The signed-in operator, or a redirect to the sign-in page. */
  private async session(request: FastifyRequest, reply: Reply): Promise<ConsoleSession | undefined> {
    const id = sessionIdOf(request);
    const session = id ? await this.sessions.find(id) : undefined;
    if (!session) this.toSignIn(reply);
    return session;
  }

  private toSignIn(reply: Reply): void {
    void reply.code(303).header('location', '/ops/console/sign-in').send();
  }

  /** A read that may find nothing: undefined for a 404 (and a refused session). */
  private async callOrMissing<T>(request: FastifyRequest, path: string): Promise<T | undefined> {
    try {
      return await this.call<T>(request, path);
    } catch (err) {
      if (err instanceof ProblemException && err.kind === 'notFound') return undefined;
      throw err;
    }
  }

  /** An /ops/v1 read with the operator's own session: undefined when the session is refused. */
  private async call<T>(request: FastifyRequest, path: string): Promise<T | undefined> {
    const fastify = this.adapter.httpAdapter.getInstance<FastifyInstance>();
    const res = await fastify.inject({
      method: 'GET',
      url: path,
      // An injected request is plain http: it carries the session under the plain cookie name.
      headers: { cookie: `${SESSION_COOKIE}=${sessionIdOf(request) ?? ''}` },
      remoteAddress: request.ip,
    });
    if (res.statusCode === 401) return undefined;
    if (res.statusCode === 404) throw new ProblemException('notFound', res.json<{ detail: string }>().detail);
    if (res.statusCode !== 200) throw new ProblemException('unavailable', `${path} answered ${res.statusCode}.`);
    return res.json<T>();
  }

  private frame(reply: Reply, title: string, session?: ConsoleSession, current?: Page): Frame {
    const nonce = randomBytes(16).toString('base64');
    void reply.header('content-type', 'text/html; charset=utf-8');
    void reply.header('content-security-policy', contentSecurityPolicy(nonce));
    return { nonce, title, operator: session?.operator, csrfToken: session?.csrfToken, current };
  }
}
