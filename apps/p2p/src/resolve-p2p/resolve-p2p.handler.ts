import { Controller, Inject, Logger } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  Envelope,
  errorReply,
  okReply,
  parsePayload,
  P2pCommandTypes,
  P2pView,
  Reply,
  resolveP2pCommand,
} from '@payments/contracts';
import { Outbox } from '@payments/messaging';
import { resolveByOperator } from '@payments/transfers-domain';
import { P2pRepository } from '../p2p.repository';
import { toP2pView } from '../p2p-view';
import { applyTransition } from '../p2p-outbox';
import { CLOCK, Clock, P2P_OUTBOX } from '../tokens';

@Controller()
export class ResolveP2pHandler {
  private readonly logger = new Logger(ResolveP2pHandler.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly transactions: P2pRepository,
    @Inject(P2P_OUTBOX) private readonly outbox: Outbox,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** An operator completes or fails a P2P transaction in need_action; anything else is a 409 with its status. */
  @MessagePattern(P2pCommandTypes.resolve)
  async resolve(@Payload() message: Envelope): Promise<Reply<P2pView>> {
    const cmd = parsePayload(resolveP2pCommand, message.payload, message.type);
    const now = this.clock.now();
    return this.dataSource.transaction(async (m) => {
      const p2p = await this.transactions.findForUpdate(m, cmd.p2pId);
      if (!p2p) return errorReply({ code: 'not_found', detail: `P2P transaction ${cmd.p2pId} does not exist` });
      const result = resolveByOperator('p2p', p2p, cmd.action);
      if (result.kind === 'rejected')
        return errorReply({ code: 'conflict', detail: result.reason, extensions: { currentStatus: p2p.status } });
      await applyTransition(this.outbox, m, p2p, result, now, message);
      this.logger.log(
        `P2P transaction ${p2p.id}: ${cmd.action} by an operator → ${result.status} ${result.statusCode}`,
      );
      return okReply(toP2pView(p2p));
    });
  }
}
