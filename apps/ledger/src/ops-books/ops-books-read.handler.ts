import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  BalanceView,
  Envelope,
  getShopBalanceQuery,
  LedgerOpsCommandTypes,
  listShopTransactionsQuery,
  okReply,
  parsePayload,
  Reply,
  ShopTransactionPage,
} from '@payments/contracts';
import { BalanceReads, transactionPage } from '../read-balance/balance.reads';
import { AdjustmentRepository } from './adjustment.repository';

/**
 * A shop's books as operators read them (decision 309), asked by the backoffice on
 * `ledger.ops-commands` with the operator: the merchant's own figures (BalanceReads), and for a
 * manual adjustment who posted it and why.
 */
@Controller()
export class OpsBooksReadHandler {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly reads: BalanceReads,
    private readonly adjustments: AdjustmentRepository,
  ) {}

  @MessagePattern(LedgerOpsCommandTypes.getShopBalance)
  async balance(@Payload() message: Envelope): Promise<Reply<BalanceView>> {
    const q = parsePayload(getShopBalanceQuery, message.payload, message.type);
    return okReply(await this.reads.balance(q.shopId));
  }

  @MessagePattern(LedgerOpsCommandTypes.listShopTransactions)
  async transactions(@Payload() message: Envelope): Promise<Reply<ShopTransactionPage>> {
    const q = parsePayload(listShopTransactionsQuery, message.payload, message.type);
    const read = await transactionPage(this.reads, q.shopId, q.limit, q.cursor);
    if (!read.ok) return read;
    const page = read.result;
    const notes = await this.adjustments.notes(
      this.dataSource.manager,
      page.items.filter((t) => t.source.type === 'adjustment').map((t) => t.source.id),
    );
    return okReply({
      items: page.items.map((t) => {
        const adjustment = t.source.type === 'adjustment' ? notes.get(t.source.id) : undefined;
        return adjustment ? { ...t, adjustment } : t;
      }),
      nextCursor: page.nextCursor,
    });
  }
}
