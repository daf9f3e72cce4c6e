import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { topicSpecs } from '@payments/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DeadLetterStatuses, DeadLetterView } from '../dead-letters/dead-letter.repository';
import { mayAct } from '../operators/operators';
import { ConsolePageService } from './console-page.service';
import { deadLettersPage } from './console.pages';
import { en } from './console.strings';

type Reply = FastifyReply;

/** The console's dead letters: open ones first, to redrive or discard. */
@ApiExcludeController()
@Controller('ops/console')
export class ConsoleDeadLettersController {
  constructor(private readonly pages: ConsolePageService) {}

  @Get('dead-letters')
  async deadLetters(
    @Query('topic') topic: string | undefined,
    @Query('status') status: string | undefined,
    @Query('cursor') cursor: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: Reply,
  ): Promise<string | void> {
    const session = await this.pages.session(request, reply);
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
    return this.pages.render(reply, session, 'dead-letters', en.deadLetters.title, async (frame) => {
      const page = await this.pages.call<{ items: DeadLetterView[]; nextCursor: string | null }>(
        request,
        `/ops/v1/dead-letters?${query}`,
      );
      return page && deadLettersPage(frame, page, topics, filter, mayAct(session.operator.role, 'operator'));
    });
  }
}
