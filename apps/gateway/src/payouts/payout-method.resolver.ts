import { Inject, Injectable } from '@nestjs/common';
import {
  ListMethodsQuery,
  MethodListView,
  MethodQueryTypes,
  PayoutInstrumentType,
  ResolvedPayoutMethod,
  ResolvePayoutMethodQuery,
  Topics,
} from '@payments/contracts';
import { KafkaRequestClient } from '@payments/messaging';
import { checkPayee, methodFits } from '@payments/methods-domain';
import { canonicalCurrency } from '@payments/money';
import { FieldError } from '@payments/platform';
import { ask } from '@payments/merchant-admin';
import { REQUEST_CLIENT } from '../tokens';
import type { CreatePayoutDto } from './create-payout.dto';

export interface PayoutRoute {
  provider: string;
  instrumentType: PayoutInstrumentType;
  /** The payee members that hold card numbers (format `pan`): tokenized before anything is sent. */
  cardFields: string[];
}

export type PayoutCheck = { kind: 'ok'; route: PayoutRoute } | { kind: 'invalid'; errors: FieldError[] };

/** The method of a payout via payment page, chosen before the recipient gives the payee. */
export type PagePayoutMethod = { kind: 'ok'; method: string; route: PayoutRoute } | { kind: 'none' };

/**
 * Before a payout is stored or sent: its method must be one of the shop's, usable for its
 * currency, wallet type and amount (the methods service answers 422 naming the field otherwise,
 * passed on as it is), and its payee must carry exactly the fields the method requires, in their
 * formats (400 naming each).
 */
@Injectable()
export class PayoutMethodResolver {
  constructor(@Inject(REQUEST_CLIENT) private readonly client: KafkaRequestClient) {}

  /**
   * A payout via payment page: the method `paymentSettingsAlias` (or payout.method) names, which
   * the methods service checks for currency and amount; else the first of the shop's payout
   * methods that offers the currency for the amount; `none` when no method fits (1-03-02).
   */
  async forPage(shopId: string, body: CreatePayoutDto): Promise<PagePayoutMethod> {
    const named = body.paymentSettingsAlias ?? body.payout.method;
    const cost = body.payout.cost;
    let code = named;
    if (code === undefined) {
      const list = await ask<MethodListView>(this.client, Topics.methodsQueries, shopId, MethodQueryTypes.payoutList, {
        shopId,
      } satisfies ListMethodsQuery);
      const terms = { currency: cost.currency, tokenStandard: cost.tokenStandard, amount: cost.amount };
      code = list.methods.find((m) => methodFits(m, terms))?.code;
      if (code === undefined) return { kind: 'none' };
    }
    const resolved = await this.resolve(shopId, body, code);
    return { kind: 'ok', method: code, route: routeOf(resolved) };
  }

  private resolve(shopId: string, body: CreatePayoutDto, method: string): Promise<ResolvedPayoutMethod> {
    const cost = body.payout.cost;
    const query: ResolvePayoutMethodQuery = {
      shopId,
      method,
      currency: canonicalCurrency(cost.currency),
      ...(cost.tokenStandard ? { tokenStandard: cost.tokenStandard } : {}),
      ...(body.walletType ? { walletType: body.walletType } : {}),
      amount: cost.amount,
    };
    return ask<ResolvedPayoutMethod>(this.client, Topics.methodsQueries, shopId, MethodQueryTypes.payoutResolve, query);
  }

  async check(shopId: string, body: CreatePayoutDto & { payout: { method: string } }): Promise<PayoutCheck> {
    const cost = body.payout.cost;
    const query: ResolvePayoutMethodQuery = {
      shopId,
      method: body.payout.method,
      currency: canonicalCurrency(cost.currency),
      ...(cost.tokenStandard ? { tokenStandard: cost.tokenStandard } : {}),
      ...(body.walletType ? { walletType: body.walletType } : {}),
      amount: cost.amount,
    };
    const resolved = await ask<ResolvedPayoutMethod>(
      this.client,
      Topics.methodsQueries,
      shopId,
      MethodQueryTypes.payoutResolve,
      query,
    );
    const errors: FieldError[] = [];
    if (body.instrumentType !== undefined && body.instrumentType !== resolved.method.instrumentType) {
      errors.push({
        path: 'instrumentType',
        message: `does not match the payout method ${resolved.method.code} (${resolved.method.instrumentType})`,
      });
    }
    errors.push(...checkPayee(resolved.fields, body.payee ?? {}));
    if (errors.length > 0) return { kind: 'invalid', errors };
    return { kind: 'ok', route: routeOf(resolved) };
  }
}

function routeOf(resolved: ResolvedPayoutMethod): PayoutRoute {
  return {
    provider: resolved.method.provider,
    instrumentType: resolved.method.instrumentType,
    cardFields: resolved.fields
      .filter((f) => f.format === 'pan')
      .map((f) => (f.path.startsWith('payee.') ? f.path.slice('payee.'.length) : f.path)),
  };
}
