import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { InjectDataSource } from '@nestjs/typeorm';
import { timingSafeEqual } from 'node:crypto';
import { DataSource } from 'typeorm';
import {
  CheckoutPayoutView,
  Envelope,
  errorReply,
  getPayoutForCheckoutQuery,
  okReply,
  parsePayload,
  PayoutCommandTypes,
  PayoutLinkStatus,
  Reply,
  submitPayoutDetailsCommand,
} from '@payments/contracts';
import { formatInCurrency } from '@payments/money';
import { CLOCK, Clock } from '@payments/platform';
import { TransferWrites } from '@payments/transfers';
import { maskDetails } from '@payments/transfers-domain';
import { PayoutEntity } from '../payout.entity';

/** The same answer for a wrong token as for a missing payout: a link is never confirmed by guessing. */
const NO_SUCH_LINK = errorReply({ code: 'not_found', detail: 'no such payout link' });

function sameHash(p: PayoutEntity | null, linkHash: string): p is PayoutEntity {
  if (!p?.linkHash) return false;
  const a = Buffer.from(p.linkHash, 'hex');
  const b = Buffer.from(linkHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Where a payout's link is: live until submitted, expired or the payout moved on. */
export function payoutLinkStatusOf(p: PayoutEntity, now: Date): PayoutLinkStatus {
  if (p.linkUsedAt) return 'used';
  if (p.status !== 'registered') return 'closed';
  if (p.linkExpiresAt && p.linkExpiresAt.getTime() <= now.getTime()) return 'expired';
  return 'live';
}

export function toCheckoutPayoutView(p: PayoutEntity, now: Date): CheckoutPayoutView {
  const card = Object.values(p.payeeCards ?? {})[0];
  const masked = card?.masked ?? Object.values(maskDetails(p.payee)).find((v) => typeof v === 'string');
  return {
    payoutId: p.id,
    shopId: p.shopId,
    merchantPayoutId: p.merchantPayoutId,
    method: p.method,
    status: p.status,
    ...(p.statusCode ? { statusCode: p.statusCode } : {}),
    amount: formatInCurrency(p.amount, p.currency),
    currency: p.currency,
    ...(p.tokenStandard ? { tokenStandard: p.tokenStandard } : {}),
    ...(p.description ? { description: p.description } : {}),
    expiresAt: p.linkExpiresAt!.toISOString(),
    linkStatus: payoutLinkStatusOf(p, now),
    ...(p.pageLocale ? { locale: p.pageLocale } : {}),
    ...(p.redirectUrls ? { redirectUrls: p.redirectUrls } : {}),
    ...(typeof masked === 'string' && p.linkUsedAt ? { maskedPayee: masked } : {}),
  };
}

/**
 * Requests of the payout page (apps/checkout): read a payout via payment page, and the
 * recipient's one submission, which fills in the payee and queues the dispatch under the row lock.
 */
@Controller()
export class PayoutLinkHandler {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly writes: TransferWrites,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @MessagePattern(PayoutCommandTypes.getForCheckout)
  async get(@Payload() message: Envelope): Promise<Reply<CheckoutPayoutView>> {
    const q = parsePayload(getPayoutForCheckoutQuery, message.payload, message.type);
    const p = await this.dataSource.getRepository(PayoutEntity).findOne({ where: { id: q.payoutId } });
    if (!sameHash(p, q.linkHash)) return NO_SUCH_LINK;
    return okReply(toCheckoutPayoutView(p, this.clock.now()));
  }

  /** One submission per link: a second (another tab, a replay, an expired link) is a conflict that changes nothing. */
  @MessagePattern(PayoutCommandTypes.submitDetails)
  async submit(@Payload() message: Envelope): Promise<Reply<CheckoutPayoutView>> {
    const cmd = parsePayload(submitPayoutDetailsCommand, message.payload, message.type);
    const now = this.clock.now();
    return this.dataSource.transaction(async (m) => {
      const rows = m.getRepository(PayoutEntity);
      const p = await rows.findOne({ where: { id: cmd.payoutId }, lock: { mode: 'pessimistic_write' } });
      if (!sameHash(p, cmd.linkHash)) return NO_SUCH_LINK;
      const status = payoutLinkStatusOf(p, now);
      if (status !== 'live')
        return errorReply({
          code: 'conflict',
          detail: `the payout link is ${status}`,
          extensions: { linkStatus: status },
        });
      p.method = cmd.method;
      p.provider = cmd.provider;
      p.instrumentType = cmd.instrumentType;
      p.payee = cmd.payee;
      p.payeeCards = cmd.payeeCards ?? null;
      p.linkUsedAt = now;
      p.updatedAt = now;
      await rows.update(
        { id: p.id },
        {
          method: p.method,
          provider: p.provider,
          instrumentType: p.instrumentType,
          payee: cmd.payee,
          payeeCards: cmd.payeeCards ?? null,
          linkUsedAt: now,
          updatedAt: now,
        },
      );
      await this.writes.queueDispatch(m, p, now);
      return okReply(toCheckoutPayoutView(p, now));
    });
  }
}
