import { Body, Controller, Get, Header, HttpCode, Post, Query, Req, Res, SetMetadata, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ProblemException } from '@payments/platform';
import { IsDefined, IsString, Length } from 'class-validator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { OpsAuthGuard, OpsRequest, sessionCookie } from '../auth/ops-auth.guard';
import { OPS_ROLE } from '@payments/merchant-admin';
import { AuditRecord, AuditRepository } from '../operators/audit.repository';
import { Audited } from '../operators/audited.decorator';
import { Overview } from '../overview/overview.service';
import { CONSOLE_SCRIPT, CONSOLE_STYLE } from './console.assets';
import { ConsoleSessionRepository, SESSION_HOURS } from './console-session.repository';
import { ConsolePageService } from './console-page.service';
import { auditPage, overviewFragment, overviewPage, signInPage } from './console.pages';
import { en } from './console.strings';

export class SignInDto {
  @IsDefined()
  @IsString()
  @Length(8, 512)
  token: string;
}

type Reply = FastifyReply;

/**
 * The operators' console (issue 15 item 3): server-rendered pages on the operators' listener. Every
 * figure a page shows comes from an /ops/v1 route, called here with the operator's own session
 * (so the same guard, roles and audit apply); the page's script sends every action to an /ops/v1
 * route with the session's CSRF token (decision 154).
 *
 * This controller holds the sign-in, the overview and the audit log; each other area has its own
 * (console-orders, console-transfers, console-callbacks, console-dead-letters), all on the same
 * ConsolePageService.
 */
@ApiExcludeController()
@Controller('ops/console')
export class ConsoleController {
  constructor(
    private readonly guard: OpsAuthGuard,
    private readonly sessions: ConsoleSessionRepository,
    private readonly audit: AuditRepository,
    private readonly pages: ConsolePageService,
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
    const frame = this.pages.frame(reply, en.signIn.title);
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
    const session = await this.pages.session(request, reply);
    if (!session) return;
    return this.pages.render(reply, session, 'overview', en.overview.title, async (frame) => {
      const data = await this.pages.call<Overview>(request, '/ops/v1/overview');
      return data && overviewPage(frame, data);
    });
  }

  @Get('overview/live')
  async overviewLive(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: Reply): Promise<string | void> {
    const data = await this.pages.call<Overview>(request, '/ops/v1/overview');
    if (!data) throw new ProblemException('unauthorized', en.errors.sessionEnded);
    this.pages.frame(reply, en.overview.title);
    return overviewFragment(data);
  }

  @Get('audit')
  async auditLog(
    @Query() raw: Record<string, unknown>,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: Reply,
  ): Promise<string | void> {
    const session = await this.pages.session(request, reply);
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
    return this.pages.render(reply, session, 'audit', en.audit.title, async (frame) => {
      const page = await this.pages.call<{ items: AuditRecord[]; nextCursor: string | null }>(
        request,
        `/ops/v1/audit?${query}`,
      );
      return page && auditPage(frame, page, filter);
    });
  }
}
