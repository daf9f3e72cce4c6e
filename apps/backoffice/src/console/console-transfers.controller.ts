import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ProblemException } from '@payments/platform';
import { TransferStatuses } from '@payments/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TransferAttempt } from '../overview/overview.service';
import { ConsolePageService, UUID } from './console-page.service';
import { TransferLike, transferPage, transfersPage } from './console.pages';
import { en } from './console.strings';

type Reply = FastifyReply;

/** The console's payouts and P2P transactions: one list and one page for both kinds. */
@ApiExcludeController()
@Controller('ops/console')
export class ConsoleTransfersController {
  constructor(private readonly pages: ConsolePageService) {}

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
    const session = await this.pages.session(request, reply);
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
    return this.pages.render(reply, session, kind, en.transfers[kind].title, async (frame) => {
      const page = await this.pages.call<{ items: TransferLike[]; nextCursor: string | null }>(
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
    const session = await this.pages.session(request, reply);
    if (!session) return;
    return this.pages.render(reply, session, kind, en.transfers[kind].title, async (frame) => {
      if (!UUID.test(id)) throw new ProblemException('notFound', `No ${en.transfers[kind].one} has this id.`);
      const page = await this.pages.call<{ items: TransferLike[] }>(request, `/ops/v1/${kind}?id=${id}&limit=1`);
      const [history, attempts] = await Promise.all([
        this.pages.history(request, id),
        this.pages.call<{ items: TransferAttempt[] }>(request, `/ops/v1/${kind}/${id}/attempts`),
      ]);
      if (!page || !history || !attempts) return undefined;
      if (!page.items[0]) throw new ProblemException('notFound', `No ${en.transfers[kind].one} has this id.`);
      return transferPage(frame, kind, page.items[0], history, attempts.items);
    });
  }
}
