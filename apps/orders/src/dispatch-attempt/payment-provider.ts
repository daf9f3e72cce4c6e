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
}

/**
 * What one send of an attempt came to, whatever the provider's own vocabulary: a small closed
 * set, so the dispatcher's rules are the same for every provider.
 *
 * - `accepted`: the provider has the payment; its outcome comes later by callback.
 * - `timed_out`: no answer in time, or the connection broke after the request may have left.
 *   The provider may have the payment, so it is never sent again; the callback resolves it.
 * - `unavailable`: the provider certainly did not take it (connection refused, DNS failure) or
 *   said it could not (5xx, 429). Sending again is safe: the paymentId makes it idempotent.
 * - `refused`: the provider answered that it will not take this request (4xx); sending the same
 *   request again would get the same answer.
 */
export type ProviderAnswer =
  | { kind: 'accepted'; providerPaymentId?: string }
  | { kind: 'timed_out'; reason: string }
  | { kind: 'unavailable'; reason: string }
  | { kind: 'refused'; reason: string };

/** A provider adapter: turns our request into the provider's API call and its answer into ours. */
export interface PaymentProvider {
  /** The provider code that its callbacks arrive under (`POST /callbacks/{code}`). */
  readonly code: string;
  startPayment(request: StartPaymentRequest, opts: { timeoutMs: number }): Promise<ProviderAnswer>;
}

export const PAYMENT_PROVIDER = Symbol('PAYMENT_PROVIDER');
