/** What we ask a provider to start: a payment attempt of an order, a payout or a P2P transaction. */
export interface ProviderRequest {
  kind: 'payment' | 'payout' | 'p2p';
  /** Our id of this send (`pay_<uuid>`, `pout_<uuid>`, …): a resend with the same id is the same operation at the provider. */
  dispatchId: string;
  /** Our order, payout or P2P id; the provider's callbacks name it as `reference`. */
  reference: string;
  /** A decimal string, at the currency's scale for fiat. */
  amount: string;
  currency: string;
  tokenStandard?: string;
  /**
   * Card numbers by role (`payee.cardNumber`, `sender`, `recipient`), detokenized from the card
   * vault just before the send: held in memory for this one request, never stored or logged.
   */
  cards?: Record<string, string>;
  /** A payment the payer approves in the provider's app (hosted pages, dataEntryMode instruction). */
  app?: boolean;
}

/**
 * What one send came to, whatever the provider's own vocabulary: a small closed set, so the
 * dispatcher's rules are the same for every provider and every kind.
 *
 * - `accepted`: the provider has it; its outcome comes later by callback.
 * - `timed_out`: the outcome is unknown: no answer in time, the connection broke after the
 *   request may have left, or the provider answered that it already has a payment under our id
 *   (a 409 "payment id exists", decision 343). The provider may have it, so it is never sent
 *   again and never failed over; the callback resolves it.
 * - `unavailable`: the provider certainly did not take it (connection refused, DNS failure) or
 *   said it could not (5xx, 429). Sending again is safe: the dispatch id makes it idempotent.
 *   `notSent` when the adapter can prove the provider took nothing (decision 322): the request
 *   never left (connection refused, DNS, connect timeout) or the provider said it cannot take it
 *   now (503, 429). A 500, 502, 504 or 408 is no such proof: the request reached something that
 *   may have passed it on.
 * - `refused`: the provider answered that it will not take this request (4xx other than 409);
 *   sending the same request again would get the same answer.
 */
export type ProviderAnswer =
  | { kind: 'accepted'; providerPaymentId?: string }
  | { kind: 'timed_out'; reason: string }
  | { kind: 'unavailable'; reason: string; notSent?: boolean }
  | {
      kind: 'refused';
      reason: string;
      /**
       * Our status code of the refusal when the adapter can name the provider's decline (else the
       * order fails with `2-07-01`, declined): only a named code whose `retryAllowed` is true in the
       * catalogue lets another provider try (decision 322).
       */
      statusCode?: string;
    };

/** A provider adapter: our request into the provider's API call, its answer into ours. */
export interface ProviderClient {
  /** The provider code that its callbacks arrive under (`POST /callbacks/{code}`). */
  readonly code: string;
  start(request: ProviderRequest, opts: { timeoutMs: number }): Promise<ProviderAnswer>;
}
