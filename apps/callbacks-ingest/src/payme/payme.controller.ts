import { Controller, Header, HttpCode, Param, Post, Req } from '@nestjs/common';
import type { RawBodyRequest } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { UUID_PATTERN } from '@payments/contracts';
import {
  cancelTransaction,
  checkPerform,
  createTransaction,
  PaymeCall,
  paymeAuthorized,
  paymeError,
  PaymeErrorName,
  PaymeOrderState,
  PaymeParams,
  paymeRefundCost,
  paymeResult,
  parsePaymeRequest,
  performTransaction,
} from '@payments/providers/payme';
import { ClickOrders } from '../click/click-orders';
import { ShopProviderAccountsRepository } from '../shop-accounts/shop-provider-accounts.repository';
import { callbackEventId } from '../receive-callback/receive-callback.controller';
import { PaymeTransactionRepository } from './payme-transaction.repository';
import { PaymeRpcDoc } from './payme.openapi';

type Answer = { jsonrpc: '2.0'; id: string | number | null } & ({ result: unknown } | { error: unknown });
type Outcome = { result: unknown } | { error: PaymeErrorName; data?: string };
const fail = (error: PaymeErrorName, data?: string): Outcome => ({ error, ...(data ? { data } : {}) });

/**
 * Payme's Merchant API (libs/providers/payme): JSON-RPC 2.0 over POST with Basic authorization,
 * one URL per cashbox (`/callbacks/payme/{merchantId}`), always HTTP 200. The order is asked over
 * orders' request-reply as for Click; PerformTransaction pays it through the provider-callback path.
 */
@Controller('callbacks/payme')
export class PaymeController {
  constructor(
    private readonly accounts: ShopProviderAccountsRepository,
    private readonly orders: ClickOrders,
    private readonly transactions: PaymeTransactionRepository,
  ) {}

  @Post(':merchantId')
  @HttpCode(200)
  @Header('content-type', 'application/json; charset=utf-8')
  @PaymeRpcDoc()
  async rpc(@Param('merchantId') merchantId: string, @Req() req: RawBodyRequest<FastifyRequest>): Promise<Answer> {
    // The shop whose Payme account has this cashbox (an operator setting, decision 341), and its key.
    const account = await this.accounts.find('payme', merchantId);
    const parsed = parsePaymeRequest(req.rawBody?.toString('utf8') ?? '');
    const id = parsed.id;
    const answer = (o: Outcome): Answer =>
      'result' in o
        ? { jsonrpc: '2.0', id, result: o.result }
        : { jsonrpc: '2.0', id, error: paymeError(o.error, o.data) };
    if (!account || !paymeAuthorized(req.headers.authorization, account.secret))
      return answer(fail('insufficientPrivilege'));
    if (parsed.kind === 'error') return answer(fail(parsed.error, parsed.reason));
    return answer(await this.call(merchantId, account.shopId, parsed.call, req.rawBody!.toString('utf8')));
  }

  private async call(merchantId: string, shopId: string, call: PaymeCall, rawBody: string): Promise<Outcome> {
    const now = Date.now();
    switch (call.method) {
      case 'CheckPerformTransaction': {
        const order = await this.order(call.params.account.order_id, shopId);
        if (order === 'down') return fail('cannotPerform', 'the order could not be read');
        const c = checkPerform(order, call.params.amount);
        return c.kind === 'allow' ? { result: { allow: true } } : fail(c.error, 'order_id');
      }
      case 'CreateTransaction':
        return this.create(merchantId, shopId, call.params, now);
      case 'PerformTransaction':
        return this.transactions.transaction(async (m) => {
          const d = performTransaction(await this.transactions.find(m, call.params.id), now);
          if (d.kind === 'error') return fail(d.error);
          if (d.kind === 'expire') {
            await this.transactions.cancel(m, d.transaction);
            return fail('cannotPerform');
          }
          if (d.kind === 'write') await this.transactions.perform(m, d.transaction, rawBody, new Date(now));
          return { result: paymeResult.perform(d.transaction) };
        });
      case 'CancelTransaction':
        return this.cancel(merchantId, shopId, call.params, now);
      case 'CheckTransaction':
        return this.transactions.transaction(async (m) => {
          const t = await this.transactions.find(m, call.params.id);
          return t ? { result: paymeResult.check(t) } : fail('transactionNotFound');
        });
      case 'GetStatement': {
        const all = await this.transactions.statement(merchantId, call.params.from, call.params.to);
        return { result: paymeResult.statement(all, call.params.from, call.params.to) };
      }
    }
  }

  private create(
    merchantId: string,
    shopId: string,
    p: PaymeParams['CreateTransaction'],
    now: number,
  ): Promise<Outcome> {
    return this.transactions.transaction(async (m) => {
      const known = await this.transactions.find(m, p.id);
      let order: PaymeOrderState | 'down' = { kind: 'not_found' };
      if (!known) order = await this.order(p.account.order_id, shopId);
      if (order === 'down') return fail('cannotPerform', 'the order could not be read');
      const open = known ? null : await this.transactions.openForOrder(m, p.account.order_id.toLowerCase());
      const d = createTransaction(known, open, order, p, now);
      switch (d.kind) {
        case 'error':
          return fail(d.error, 'order_id');
        case 'expire':
          await this.transactions.cancel(m, d.transaction);
          return fail('cannotPerform');
        case 'create':
          await this.transactions.insert(m, merchantId, d.transaction);
          return { result: paymeResult.create(d.transaction) };
        case 'answer':
          return { result: paymeResult.create(d.transaction) };
      }
    });
  }

  /**
   * CancelTransaction. A performed one is a refund of the whole transaction, sent to orders as a
   * merchant's refund is (decision 297); the row stays locked while orders answers, so a racing
   * copy waits and answers the same. The refund id is derived from Payme's id: asked again after a
   * lost answer, orders refunds once.
   */
  private cancel(
    merchantId: string,
    shopId: string,
    p: PaymeParams['CancelTransaction'],
    now: number,
  ): Promise<Outcome> {
    return this.transactions.transaction(async (m) => {
      const t = await this.transactions.find(m, p.id);
      let refundable = false;
      if (t?.state === 2) {
        const refunded = await this.orders.refund({
          refundId: callbackEventId('payme-refund', `${merchantId}:${t.id}`),
          orderId: t.orderId,
          shopId,
          cost: paymeRefundCost(t),
        });
        if (refunded === 'down') return fail('systemError', 'the order could not be refunded now');
        refundable = refunded === 'refunded';
      }
      const d = cancelTransaction(t, p.reason, now, refundable);
      if (d.kind === 'error') return fail(d.error);
      if (d.kind !== 'answer') await this.transactions.cancel(m, d.transaction);
      return { result: paymeResult.cancel(d.transaction) };
    });
  }

  /** The order for Payme: unknown, or another shop's, is not found. */
  private async order(orderId: string, shopId: string): Promise<PaymeOrderState | 'down'> {
    if (!UUID_PATTERN.test(orderId)) return { kind: 'not_found' };
    const o = await this.orders.state(orderId.toLowerCase());
    if (o.kind === 'down') return 'down';
    return o.kind === 'found' && o.shopId === shopId ? o : { kind: 'not_found' };
  }
}
