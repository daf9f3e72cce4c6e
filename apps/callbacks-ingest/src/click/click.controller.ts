import { Body, Controller, Header, HttpCode, Logger, Post, Req } from '@nestjs/common';
import type { RawBodyRequest } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { UUID_PATTERN } from '@payments/contracts';
import { PaymentsMetrics } from '@payments/platform';
import {
  ClickActions,
  ClickCompleteAnswer,
  ClickErrorName,
  ClickErrors,
  clickSignatureValid,
  clickPaidEvent,
  ClickPrepareAnswer,
  CLICK_PROVIDER_CODE,
  decideComplete,
  decidePrepare,
  parseComplete,
  parsePrepare,
} from '@payments/providers/click';
import { ShopProviderAccountsRepository } from '../shop-accounts/shop-provider-accounts.repository';
import { ClickOrders } from './click-orders';
import { ClickTransactionRepository } from './click-transaction.repository';
import { ClickCallDoc } from './click.openapi';

type Form = Record<string, unknown>;
interface Ids {
  click_trans_id: number;
  merchant_trans_id: string;
}

/** Whatever ids a form carries, for the answer even to a form we refuse. */
function idsOf(form: Form): Ids {
  const id = Number(form.click_trans_id);
  const ref = form.merchant_trans_id;
  return {
    click_trans_id: Number.isSafeInteger(id) ? id : 0,
    merchant_trans_id: typeof ref === 'string' ? ref.slice(0, 128) : '',
  };
}

/**
 * Click's SHOP-API (libs/providers/click): Click calls Prepare (action 0) and Complete (action 1)
 * as forms and waits for our JSON answer, always HTTP 200 with `error` 0 or -1…-9. Each request
 * is parsed, its sign_string checked with the SECRET_KEY of the shop whose Click account has the
 * request's service (an operator setting, decision 341), our transaction and the order
 * looked at, and the pure rules decide; a repeated request finds its transaction and is answered
 * as the first time.
 */
@Controller('callbacks/click')
export class ClickController {
  private readonly logger = new Logger('Click');

  constructor(
    private readonly accounts: ShopProviderAccountsRepository,
    private readonly orders: ClickOrders,
    private readonly transactions: ClickTransactionRepository,
  ) {}

  @Post('prepare')
  @HttpCode(200)
  @Header('content-type', 'application/json; charset=utf-8')
  @ClickCallDoc('prepare')
  async prepare(@Body() body: Form | undefined): Promise<ClickPrepareAnswer> {
    const form = body ?? {};
    const refuse = (error: ClickErrorName, why: string): ClickPrepareAnswer =>
      this.refused({ ...idsOf(form), merchant_prepare_id: null }, error, why);
    const parsed = parsePrepare(form);
    if (parsed.kind === 'invalid') return refuse('badRequest', parsed.reason);
    const r = parsed.request;
    const shop = await this.verified(r);
    if (!shop) return refuse('signCheckFailed', `sign_string of service ${r.service_id} is not valid`);
    if (r.action !== String(ClickActions.prepare)) return refuse('actionNotFound', `action ${r.action} on prepare`);
    if (!UUID_PATTERN.test(r.merchant_trans_id)) return refuse('userNotFound', 'merchant_trans_id is not an order id');
    const orderId = r.merchant_trans_id.toLowerCase();
    const answer = (prepareId: string): ClickPrepareAnswer =>
      this.ok({ ...idsOf(form), merchant_prepare_id: Number(prepareId) }, 'prepare');

    const m = this.transactions.manager();
    const known = await this.transactions.find(m, r.click_trans_id);
    if (known) {
      const d = decidePrepare(known, { kind: 'not_found' }, shop.shopId, r);
      return d.kind === 'repeat'
        ? answer(d.transaction.merchantPrepareId)
        : refuse('badRequest', 'click_trans_id was prepared for other terms');
    }
    const order = await this.orders.state(orderId);
    if (order.kind === 'down') return refuse('failedToUpdate', 'the order could not be read');
    if (await this.transactions.orderPaidByClick(m, orderId))
      return refuse('alreadyPaid', 'Click completed another payment of the order');
    const d = decidePrepare(null, order, shop.shopId, r);
    switch (d.kind) {
      case 'refuse':
        return refuse(d.error, `order ${orderId}`);
      case 'repeat':
        return answer(d.transaction.merchantPrepareId);
      case 'prepare': {
        const t = await this.transactions.insertPrepared(
          m,
          {
            clickTransId: r.click_trans_id,
            serviceId: r.service_id,
            clickPaydocId: r.click_paydoc_id,
            orderId,
            amount: r.amount,
          },
          new Date(),
        );
        return answer(t.merchantPrepareId);
      }
    }
  }

  @Post('complete')
  @HttpCode(200)
  @Header('content-type', 'application/json; charset=utf-8')
  @ClickCallDoc('complete')
  async complete(
    @Body() body: Form | undefined,
    @Req() req: RawBodyRequest<FastifyRequest>,
  ): Promise<ClickCompleteAnswer> {
    const form = body ?? {};
    const refuse = (error: ClickErrorName, why: string): ClickCompleteAnswer =>
      this.refused({ ...idsOf(form), merchant_confirm_id: null }, error, why);
    const parsed = parseComplete(form);
    if (parsed.kind === 'invalid') return refuse('badRequest', parsed.reason);
    const r = parsed.request;
    const shop = await this.verified(r);
    if (!shop) return refuse('signCheckFailed', `sign_string of service ${r.service_id} is not valid`);
    if (r.action !== String(ClickActions.complete)) return refuse('actionNotFound', `action ${r.action} on complete`);
    const confirmed = (id: string | null): ClickCompleteAnswer =>
      this.ok({ ...idsOf(form), merchant_confirm_id: id === null ? null : Number(id) }, 'complete');

    // The transaction's row stays locked while the order is asked: a racing copy of this Complete waits, then repeats.
    return this.transactions.transaction(async (m) => {
      const known = await this.transactions.find(m, r.click_trans_id, true);
      let d = decideComplete(known, r, undefined, shop.shopId);
      if (d.kind === 'needs_order') {
        const order = await this.orders.state(known!.orderId);
        if (order.kind === 'down') return refuse('failedToUpdate', 'the order could not be read');
        d = decideComplete(known, r, order, shop.shopId);
      }
      const now = new Date();
      switch (d.kind) {
        case 'needs_order':
          throw new Error('the order was given');
        case 'repeat':
          return confirmed(d.transaction.merchantConfirmId);
        case 'refuse':
          return refuse(d.error, `transaction ${r.click_trans_id}`);
        case 'cancel':
          await this.transactions.cancel(m, r.click_trans_id, Number(r.error), now);
          return refuse(d.error, `transaction ${r.click_trans_id} cancelled (Click error ${r.error})`);
        case 'complete': {
          const t = known!;
          const stored = await this.transactions.complete(
            m,
            t.clickTransId,
            {
              event: clickPaidEvent(t),
              rawBody:
                req.rawBody?.toString('utf8') ?? new URLSearchParams(r as unknown as Record<string, string>).toString(),
              signTimestamp: Math.floor(now.getTime() / 1000),
            },
            now,
          );
          if (!stored) return refuse('alreadyPaid', `another Click payment of order ${t.orderId} completed first`);
          return confirmed(t.merchantPrepareId);
        }
      }
    });
  }

  /** The shop of the request's service, when its sign_string is the one the service's SECRET_KEY makes. */
  private async verified(
    r: Parameters<typeof clickSignatureValid>[0] & { service_id: string },
  ): Promise<{ shopId: string } | undefined> {
    const account = await this.accounts.find('click', r.service_id);
    return account && clickSignatureValid(r, account.secret) ? { shopId: account.shopId } : undefined;
  }

  private ok<T extends Ids>(ids: T, step: string): T & { error: number; error_note: string } {
    PaymentsMetrics.providerCallbacks.inc({ provider: CLICK_PROVIDER_CODE, result: `${step}_ok` });
    return { ...ids, error: ClickErrors.success.error, error_note: ClickErrors.success.note };
  }

  private refused<T extends Ids>(
    ids: T,
    error: ClickErrorName,
    why: string,
  ): T & { error: number; error_note: string } {
    const e = ClickErrors[error];
    PaymentsMetrics.providerCallbacks.inc({ provider: CLICK_PROVIDER_CODE, result: `error_${-e.error}` });
    // What Click was told and why; never the form (it carries the signature) nor a key.
    this.logger.log(`Click ${ids.click_trans_id}: ${e.error} ${e.note} (${why})`);
    return { ...ids, error: e.error, error_note: e.note };
  }
}
