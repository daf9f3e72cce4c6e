import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { randomUUID } from 'node:crypto';
import { ProblemException } from '@payments/platform';
import type {
  AwaitingCreditList,
  BalanceView,
  FeeListView,
  RateListView,
  SettlementView,
  ShopTransactionPage,
} from '@payments/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { mayAct } from '../operators/operators';
import { ConsolePageService, UUID } from './console-page.service';
import { booksPage, shopBooksPage, shopFeesPage } from './console.pages';
import { en } from './console.strings';

type Reply = FastifyReply;

const CURSOR = /^[A-Za-z0-9_-]{1,200}$/;

/**
 * The console's books (issue 29 items 3, 4 and 6): the rates and a way into a shop's books; a
 * shop's balances and ledger transactions with the manual adjustment form (admins); its fee lines
 * and settlement delay with their forms (operators). Every figure comes from the /ops/v1 routes of
 * decisions 303 and 308–309, called with the operator's own session.
 */
@ApiExcludeController()
@Controller('ops/console')
export class ConsoleBooksController {
  constructor(private readonly pages: ConsolePageService) {}

  @Get('books')
  async books(
    @Query('shopId') shopId: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: Reply,
  ): Promise<string | void> {
    const session = await this.pages.session(request, reply);
    if (!session) return;
    const wanted = typeof shopId === 'string' ? shopId.trim() : '';
    if (wanted && UUID.test(wanted))
      return void reply.code(303).header('location', `/ops/console/shops/${wanted.toLowerCase()}/books`).send();
    return this.pages.render(reply, session, 'books', en.books.title, async (frame) => {
      const rates = await this.pages.call<RateListView>(request, '/ops/v1/rates');
      const awaiting = await this.pages.call<AwaitingCreditList>(request, '/ops/v1/awaiting-credits?limit=100');
      if (!rates || !awaiting) return undefined;
      return booksPage(frame, rates, awaiting, {
        canAct: mayAct(session.operator.role, 'operator'),
        isAdmin: mayAct(session.operator.role, 'admin'),
        notice: wanted ? en.books.badShopId : undefined,
      });
    });
  }

  @Get('shops/:shopId/books')
  async shopBooks(
    @Param('shopId') shopId: string,
    @Query('cursor') cursor: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: Reply,
  ): Promise<string | void> {
    const session = await this.pages.session(request, reply);
    if (!session) return;
    const paged = typeof cursor === 'string' && CURSOR.test(cursor);
    return this.pages.render(reply, session, 'books', en.books.title, async (frame) => {
      if (!UUID.test(shopId)) throw new ProblemException('notFound', 'No such shop.');
      const base = `/ops/v1/shops/${shopId}`;
      const balance = await this.pages.call<BalanceView>(request, `${base}/balance`);
      const query = new URLSearchParams({ limit: '50', ...(paged ? { cursor: cursor! } : {}) });
      const page = await this.pages.call<ShopTransactionPage>(request, `${base}/balance/transactions?${query}`);
      const awaiting = await this.pages.call<AwaitingCreditList>(
        request,
        `/ops/v1/awaiting-credits?shopId=${shopId}&limit=100`,
      );
      if (!balance || !page || !awaiting) return undefined;
      return shopBooksPage(frame, shopId, balance, page, awaiting, {
        isAdmin: mayAct(session.operator.role, 'admin'),
        idempotencyKey: `console:${randomUUID()}`,
        paged,
      });
    });
  }

  @Get('shops/:shopId/fees')
  async shopFees(
    @Param('shopId') shopId: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: Reply,
  ): Promise<string | void> {
    const session = await this.pages.session(request, reply);
    if (!session) return;
    return this.pages.render(reply, session, 'books', en.books.title, async (frame) => {
      if (!UUID.test(shopId)) throw new ProblemException('notFound', 'No such shop.');
      const fees = await this.pages.call<FeeListView>(request, `/ops/v1/shops/${shopId}/fees`);
      const settlement = await this.pages.call<SettlementView>(request, `/ops/v1/shops/${shopId}/settlement`);
      if (!fees || !settlement) return undefined;
      return shopFeesPage(frame, shopId, fees, settlement, mayAct(session.operator.role, 'operator'));
    });
  }
}
