import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  BalanceTransactionPage,
  BalanceView,
  Envelope,
  errorReply,
  getBalanceQuery,
  LedgerCommandTypes,
  listBalanceTransactionsQuery,
  okReply,
  parsePayload,
  Reply,
} from '@payments/contracts';
import { BalanceReads, decodeCursor } from './balance.reads';

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
    const after = q.cursor ? decodeCursor(q.cursor) : null;
    if (q.cursor && !after)
      return errorReply({
        code: 'invalid',
        detail: 'cursor: must be the nextCursor of a previous page',
        errors: [{ path: 'cursor', message: 'must be the nextCursor of a previous page' }],
      });
    return okReply(await this.reads.transactions(q.shopId, q.limit, after));
  }
}
