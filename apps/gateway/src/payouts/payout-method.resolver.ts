import { Inject, Injectable } from '@nestjs/common';
import type { PayoutInstrumentType } from '@payments/contracts';
import { KafkaRequestClient } from '@payments/messaging';
import { FieldError } from '@payments/platform';
import { REQUEST_CLIENT } from '../tokens';
import type { CreatePayoutDto } from './create-payout.dto';

export interface ResolvedPayoutMethod {
  provider: string;
  instrumentType: PayoutInstrumentType;
}

export type PayoutCheck = { kind: 'ok'; method: ResolvedPayoutMethod } | { kind: 'invalid'; errors: FieldError[] };

/**
 * Before a payout is stored or sent: its method must be one of the shop's, usable for its
 * currency, wallet type and amount, and its payee must carry the fields the method requires.
 * Until the methods service is wired, every method sends through the sandbox.
 */
@Injectable()
export class PayoutMethodResolver {
  constructor(@Inject(REQUEST_CLIENT) private readonly client: KafkaRequestClient) {}

  async check(_shopId: string, body: CreatePayoutDto): Promise<PayoutCheck> {
    void this.client;
    return { kind: 'ok', method: { provider: 'sandbox', instrumentType: body.instrumentType ?? 'card' } };
  }
}
