import { Inject, Injectable } from '@nestjs/common';
import {
  MethodQueryTypes,
  PayoutInstrumentType,
  ResolvedPayoutMethod,
  ResolvePayoutMethodQuery,
  Topics,
} from '@payments/contracts';
import { KafkaRequestClient } from '@payments/messaging';
import { checkPayee } from '@payments/methods-domain';
import { canonicalCurrency } from '@payments/money';
import { FieldError } from '@payments/platform';
import { ask } from '../messaging/domain-requests';
import { REQUEST_CLIENT } from '../tokens';
import type { CreatePayoutDto } from './create-payout.dto';

export interface PayoutRoute {
  provider: string;
  instrumentType: PayoutInstrumentType;
  /** The payee members that hold card numbers (format `pan`): tokenized before anything is sent. */
  cardFields: string[];
}

export type PayoutCheck = { kind: 'ok'; route: PayoutRoute } | { kind: 'invalid'; errors: FieldError[] };

/**
 * Before a payout is stored or sent: its method must be one of the shop's, usable for its
 * currency, wallet type and amount (the methods service answers 422 naming the field otherwise,
 * passed on as it is), and its payee must carry exactly the fields the method requires, in their
 * formats (400 naming each).
 */
@Injectable()
export class PayoutMethodResolver {
  constructor(@Inject(REQUEST_CLIENT) private readonly client: KafkaRequestClient) {}

  async check(shopId: string, body: CreatePayoutDto): Promise<PayoutCheck> {
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
    errors.push(...checkPayee(resolved.fields, body.payee));
    if (errors.length > 0) return { kind: 'invalid', errors };
    return {
      kind: 'ok',
      route: {
        provider: resolved.method.provider,
        instrumentType: resolved.method.instrumentType,
        cardFields: resolved.fields
          .filter((f) => f.format === 'pan')
          .map((f) => (f.path.startsWith('payee.') ? f.path.slice('payee.'.length) : f.path)),
      },
    };
  }
}
