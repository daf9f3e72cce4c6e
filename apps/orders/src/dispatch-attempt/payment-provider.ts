import type { ProviderAnswer } from '@payments/provider-dispatch';
import type { AppDeeplinks } from '@payments/providers/sandbox';

/** One payment attempt as we ask a provider to start it. */
export interface StartPaymentRequest {
  /** Our id of the attempt (`pay_<uuid>`): the provider treats a resend with the same id as the same payment. */
  paymentId: string;
  /** Our order id; the provider's callbacks name it as `reference`. */
  orderId: string;
  /** A decimal string, at the currency's scale for fiat. */
  amount: string;
  currency: string;
  tokenStandard?: string;
  /** The payer's card from a hosted page, detokenized just before the send: never stored or logged. */
  cardNumber?: string;
  /** The payer approves in the provider's app (an instruction method): no callback until then. */
  app?: boolean;
}

/** The closed set of outcomes of one send, shared with payouts and P2P (libs/provider-dispatch). */
export type { ProviderAnswer };

/** A provider adapter: turns our request into the provider's API call and its answer into ours. */
export interface PaymentProvider {
  /** The provider code that its callbacks arrive under (`POST /callbacks/{code}`). */
  readonly code: string;
  startPayment(request: StartPaymentRequest, opts: { timeoutMs: number }): Promise<ProviderAnswer>;
  /** The deeplinks of an app payment, built before it is sent; undefined when the provider has no app. */
  deeplinks?(p: { reference: string; paymentId: string; amount: string; currency: string }): AppDeeplinks | undefined;
}

export const PAYMENT_PROVIDER = Symbol('PAYMENT_PROVIDER');

/** Every adapter of this instance by provider code (decision 322): the default one and the routes' others. */
export const PAYMENT_PROVIDERS = Symbol('PAYMENT_PROVIDERS');
export type PaymentProviders = ReadonlyMap<string, PaymentProvider>;
