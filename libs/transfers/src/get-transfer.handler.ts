import { Inject, Injectable } from '@nestjs/common';
import {
  decodeListCursor,
  encodeListCursor,
  Envelope,
  errorReply,
  listTransfersForOperatorQuery,
  okReply,
  parsePayload,
  Reply,
} from '@payments/contracts';
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

  /** Operators list any shop's transfers (the console's search), newest first; cards masked as always. */
  async handleListForOperator(message: Envelope): Promise<Reply<unknown>> {
    const q = parsePayload(listTransfersForOperatorQuery, message.payload, message.type);
    const after = q.cursor ? decodeListCursor(q.cursor) : undefined;
    if (q.cursor && !after)
      return errorReply({
        code: 'invalid',
        detail: 'cursor: must be the nextCursor of a previous page',
        errors: [{ path: 'cursor', message: 'must be the nextCursor of a previous page' }],
      });
    const found = await this.transfers.listForOperator({ ...q, after, limit: q.limit + 1 });
    const page = found.slice(0, q.limit);
    const last = page[page.length - 1];
    return okReply({
      items: page.map((t) => toTransferView(this.kind, t)),
      nextCursor: found.length > q.limit ? encodeListCursor(last.createdAt, last.id) : null,
    });
  }
}
