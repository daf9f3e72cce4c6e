import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Envelope, errorReply, okReply, Reply } from '@payments/contracts';
import { CLOCK, Clock } from '@payments/platform';
import { ProviderClient } from '@payments/provider-dispatch';
import type { NewTransfer, TransferKindSpec } from './transfer-kind';
import { TransferEntity } from './transfer.entity';
import { TransferRepository } from './transfer.repository';
import { toTransferView } from './transfer-view';
import { TransferWrites } from './transfer-writes';
import { TRANSFER_FUNDS, TRANSFER_KIND, TRANSFER_PROVIDER } from './tokens';
import type { TransferFunds } from './transfer-funds';

@Injectable()
export class CreateTransferHandler {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly transfers: TransferRepository,
    private readonly writes: TransferWrites,
    @Inject(TRANSFER_KIND) private readonly kind: TransferKindSpec,
    @Inject(TRANSFER_PROVIDER) private readonly provider: ProviderClient,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(TRANSFER_FUNDS) private readonly funds: TransferFunds,
  ) {}

  /**
   * Creates the transfer in `registered` with its event and its dispatch row, in one transaction.
   * Idempotent by id: a resent command gets the existing transfer back, nothing is sent twice.
   */
  async handle(message: Envelope): Promise<Reply<unknown>> {
    const cmd = this.kind.parseCreate(message, this.provider.code);
    const now = this.clock.now();
    // A payout is accepted only once the ledger holds its money (decision 273); asked outside the
    // transaction, so no connection waits for Kafka. A transfer seen before is answered as it is.
    const known = await this.dataSource.transaction((m) => this.answerForKnown(m, cmd));
    if (known) return known;
    const refused = await this.funds.reserve(cmd, message.eventId);
    if (refused) return refused;
    const created = await this.dataSource.transaction(async (m) => {
      const transfer = this.transfers.build(m, cmd, now);
      if (await this.transfers.insertIfAbsent(m, transfer)) {
        await this.writes.created(m, transfer, now, message);
        return okReply(toTransferView(this.kind, transfer, now));
      }
      return null;
    });
    if (created) return created;
    return this.dataSource.transaction(async (m) => {
      const raced = await this.answerForKnown(m, cmd);
      // Another shop's id, or the merchant id taken by another transfer meanwhile: never created, so no hold.
      if (!raced || !raced.ok) await this.funds.release(cmd);
      if (raced) return raced;
      // The id belongs to another shop's transfer: ids are random UUIDs, so this is a bug upstream.
      throw new Error(`${this.kind.kind} id ${cmd.id} collides with a ${this.kind.noun} of another shop`);
    });
  }

  /** The same transfer again (its answer), or the shop's merchant id already taken (a conflict). */
  private async answerForKnown(m: EntityManager, cmd: NewTransfer<TransferEntity>): Promise<Reply<unknown> | null> {
    const same = await this.transfers.findOfShop(m, cmd.id, cmd.shopId);
    if (same) return okReply(toTransferView(this.kind, same));
    const taken = await this.transfers.findByMerchantId(m, cmd.shopId, cmd.merchantId);
    if (!taken) return null;
    const { kind, merchantIdField, idField } = this.kind;
    return errorReply({
      code: 'conflict',
      detail: `${kind}.${merchantIdField} "${cmd.merchantId}" is already used by ${kind} ${taken.id} of this shop`,
      errors: [{ path: `${kind}.${merchantIdField}`, message: `is already used by another ${kind} of this shop` }],
      extensions: { [idField]: taken.id },
    });
  }
}
