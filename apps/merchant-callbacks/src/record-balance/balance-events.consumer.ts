import { Controller, Inject, Logger } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { balanceChanged, Envelope, LedgerEventTypes, parsePayload } from '@payments/contracts';
import { BATCH_HANDLER, BatchMessageFailure, Inbox } from '@payments/messaging';
import { BalanceBody, toBalanceBody } from '@payments/merchant-callbacks-domain';
import { FeedRepository } from '../read-feed/feed.repository';
import { CLOCK, Clock, MERCHANT_CALLBACKS_INBOX } from '../tokens';

/**
 * `ledger.events`: each balance change becomes a `balance.updated` event on its shop's feed
 * (decision 314), recorded with its inbox row in one statement per partition batch, in offset
 * order (the ledger keys them by shop, so a shop's are in commit order). Feed only: no delivery,
 * no callback.
 */
@Controller()
export class BalanceEventsConsumer {
  private readonly logger = new Logger(BalanceEventsConsumer.name);

  constructor(
    @Inject(MERCHANT_CALLBACKS_INBOX) private readonly inbox: Inbox,
    private readonly feed: FeedRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @EventPattern(LedgerEventTypes.balanceChanged, BATCH_HANDLER)
  async record(@Payload() messages: Envelope[]): Promise<void> {
    const seen = new Set<string>();
    const once: { message: Envelope; body: BalanceBody }[] = [];
    for (const message of messages) {
      let body: BalanceBody;
      try {
        body = toBalanceBody(
          message.eventId.toLowerCase(),
          message.occurredAt,
          parsePayload(balanceChanged, message.payload, message.type),
        );
      } catch (err) {
        throw new BatchMessageFailure(message.eventId, err);
      }
      if (seen.has(body.eventId)) continue;
      seen.add(body.eventId);
      once.push({ message, body });
    }
    if (once.length === 0) return;
    const recorded = await this.feed.insertEvents(
      once.map((o) => o.body),
      this.inbox.cte(
        'ib',
        once.map((o) => o.message),
      ),
      this.clock.now(),
    );
    if (recorded.size > 0) this.logger.debug(`${recorded.size} balance events on the feed`);
  }
}
