import { Inject, Injectable } from '@nestjs/common';
import { Envelope, errorReply, okReply, Reply } from '@payments/contracts';
import type { TransferKindSpec } from './transfer-kind';
import { TransferRepository } from './transfer.repository';
import { toTransferView } from './transfer-view';
import { TRANSFER_KIND } from './tokens';

@Injectable()
export class GetTransferHandler {
  constructor(
    private readonly transfers: TransferRepository,
    @Inject(TRANSFER_KIND) private readonly kind: TransferKindSpec,
  ) {}

  /** Another shop's transfer is answered exactly like a missing one. */
  async handle(message: Envelope): Promise<Reply<unknown>> {
    const q = this.kind.parseGet(message);
    const transfer = await this.transfers.getOfShop(q.id, q.shopId);
    if (!transfer) return errorReply({ code: 'not_found', detail: `${this.kind.noun} ${q.id} does not exist` });
    return okReply(toTransferView(this.kind, transfer));
  }

  /** By the merchant's own id, unique per shop; another shop's is answered like a missing one. */
  async handleByMerchantId(message: Envelope): Promise<Reply<unknown>> {
    const q = this.kind.parseGetByMerchantId(message);
    const transfer = await this.transfers.getByMerchantId(q.shopId, q.merchantId);
    if (!transfer)
      return errorReply({
        code: 'not_found',
        detail: `no ${this.kind.noun} of this shop has ${this.kind.merchantIdField} "${q.merchantId}"`,
      });
    return okReply(toTransferView(this.kind, transfer));
  }
}
