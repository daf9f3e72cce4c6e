import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  Envelope,
  errorReply,
  MethodQueryTypes,
  okReply,
  parsePayload,
  PayoutFieldsView,
  payoutFieldsQuery,
  Reply,
  ResolvedPayoutMethod,
  resolvePayoutMethodQuery,
} from '@payments/contracts';
import { PayoutRequestTerms, resolvePayout } from '@payments/methods-domain';
import { canonicalCurrency } from '@payments/money';
import { MethodRepository } from '../method.repository';
import { toDefinition, toMethodView } from '../method-view';
import { MethodEntity } from '../method.entity';

type Resolution =
  | { kind: 'ok'; method: MethodEntity; fields: ResolvedPayoutMethod['fields'] }
  | { kind: 'refused'; reply: Reply<never> };

/** `POST /payouts/fields` names its members `payoutSettings.*`; the payout body names them `payout.*`. */
const FIELDS_PATHS: Record<string, string> = {
  'payout.method': 'payoutSettings.method',
  'payout.cost.currency': 'payoutSettings.currency',
  walletType: 'payoutSettings.walletType',
};

@Controller()
export class PayoutFieldsHandler {
  constructor(private readonly methods: MethodRepository) {}

  /** The payee fields a payout with these settings needs (no amount yet, so no limits checked). */
  @MessagePattern(MethodQueryTypes.payoutFields)
  async fields(@Payload() message: Envelope): Promise<Reply<PayoutFieldsView>> {
    const q = parsePayload(payoutFieldsQuery, message.payload, message.type);
    const currency = canonicalCurrency(q.currency);
    const r = await this.resolve(
      q.shopId,
      q.method,
      { currency, tokenStandard: q.tokenStandard, walletType: q.walletType },
      (p) => FIELDS_PATHS[p] ?? p,
    );
    if (r.kind === 'refused') return r.reply;
    return okReply({
      method: r.method.code,
      currency,
      ...(q.tokenStandard ? { tokenStandard: q.tokenStandard } : {}),
      ...(q.walletType ? { walletType: q.walletType } : {}),
      fields: r.fields,
    });
  }

  /** Asked by the payouts service before it accepts a payout: the method, its limits and the payee fields. */
  @MessagePattern(MethodQueryTypes.payoutResolve)
  async resolvePayout(@Payload() message: Envelope): Promise<Reply<ResolvedPayoutMethod>> {
    const q = parsePayload(resolvePayoutMethodQuery, message.payload, message.type);
    const terms = {
      currency: canonicalCurrency(q.currency),
      tokenStandard: q.tokenStandard,
      walletType: q.walletType,
      amount: q.amount,
    };
    const r = await this.resolve(q.shopId, q.method, terms, (p) => p);
    if (r.kind === 'refused') return r.reply;
    return okReply({ method: toMethodView(r.method), fields: r.fields });
  }

  private async resolve(
    shopId: string,
    code: string,
    terms: PayoutRequestTerms,
    pathOf: (p: string) => string,
  ): Promise<Resolution> {
    const method = await this.methods.findByCode('payout', shopId, code);
    if (!method) {
      const detail = `the shop has no payout method "${code.slice(0, 64)}"`;
      return {
        kind: 'refused',
        reply: errorReply({
          code: 'unprocessable',
          detail,
          errors: [{ path: pathOf('payout.method'), message: detail }],
        }),
      };
    }
    const r = resolvePayout(toDefinition(method), terms);
    if (r.kind === 'rejected') {
      return {
        kind: 'refused',
        reply: errorReply({
          code: 'unprocessable',
          detail: `${pathOf(r.path)}: ${r.detail}`,
          errors: [{ path: pathOf(r.path), message: r.detail }],
        }),
      };
    }
    return { kind: 'ok', method, fields: r.fields };
  }
}
