import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Envelope, errorReply, okReply, Reply } from '@payments/contracts';
import { CLOCK, Clock } from '@payments/platform';
import { resolveByOperator } from '@payments/transfers-domain';
import type { TransferKindSpec } from './transfer-kind';
import { TransferRepository } from './transfer.repository';
import { toTransferView } from './transfer-view';
import { TransferWrites } from './transfer-writes';
import { TRANSFER_KIND } from './tokens';

@Injectable()
export class ResolveTransferHandler {
  private readonly logger = new Logger(ResolveTransferHandler.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly transfers: TransferRepository,
    private readonly writes: TransferWrites,
    @Inject(TRANSFER_KIND) private readonly kind: TransferKindSpec,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** An operator completes or fails a transfer in need_action; anything else is a 409 with its status. */
  async handle(message: Envelope): Promise<Reply<unknown>> {
    const cmd = this.kind.parseResolve(message);
    const now = this.clock.now();
    return this.dataSource.transaction(async (m) => {
      const transfer = await this.transfers.findForUpdate(m, cmd.id);
      if (!transfer) return errorReply({ code: 'not_found', detail: `${this.kind.noun} ${cmd.id} does not exist` });
      const result = resolveByOperator(this.kind.kind, transfer, cmd.action);
      if (result.kind === 'rejected')
        return errorReply({ code: 'conflict', detail: result.reason, extensions: { currentStatus: transfer.status } });
      await this.writes.transition(m, transfer, result, now, message);
      await this.transfers.recordResolver(m, transfer.id, cmd.operator);
      this.logger.log(
        `${this.kind.noun} ${transfer.id}: ${cmd.action} by operator ${cmd.operator.id} → ${result.status} ${result.statusCode}`,
      );
      return okReply(toTransferView(this.kind, transfer));
    });
  }
}
