import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  BalanceTransactionPage,
  BalanceView,
  Envelope,
  getBalanceQuery,
  LedgerCommandTypes,
  listBalanceTransactionsQuery,
  okReply,
  parsePayload,
  Reply,
} from '@payments/contracts';
import { BalanceReads, transactionPage } from './balance.reads';

/** The gateway's reads of a shop's books (GET /balance, GET /balance/transactions), by request-reply. */
@Controller()
export class ReadBalanceHandler {
  constructor(private readonly reads: BalanceReads) {}

  @MessagePattern(LedgerCommandTypes.getBalance)
  async balance(@Payload() message: Envelope): Promise<Reply<BalanceView>> {
    const q = parsePayload(getBalanceQuery, message.payload, message.type);
    return okReply(await this.reads.balance(q.shopId));
  }

  @MessagePattern(LedgerCommandTypes.listTransactions)
  async transactions(@Payload() message: Envelope): Promise<Reply<BalanceTransactionPage>> {
    const q = parsePayload(listBalanceTransactionsQuery, message.payload, message.type);
    return transactionPage(this.reads, q.shopId, q.limit, q.cursor);
  }
}
