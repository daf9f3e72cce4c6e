import type { ProviderClient } from '@payments/providers/core';
import { clientOf } from '@payments/providers/registry';
import { AppDeeplinks, SANDBOX_PROVIDER_CODE, sandboxDeeplinks } from '@payments/providers/sandbox';
import { PaymentProvider, ProviderAnswer, StartPaymentRequest } from './payment-provider';

/**
 * The sandbox acquirer (apps/provider-sandbox) for payment attempts: the shared HTTP adapter of
 * libs/provider-dispatch with kind `payment`. The sandbox keys payments by (reference, paymentId),
 * so a resend of the same attempt is the same payment there.
 */
export class SandboxPaymentProvider implements PaymentProvider {
  private readonly client: ProviderClient;

  /** `code`: the sandbox, or the second sandbox acquirer `sandbox-b` at its own base URL (decision 323). */
  constructor(
    private readonly baseUrl: string,
    code: string = SANDBOX_PROVIDER_CODE,
  ) {
    this.client = clientOf(code, baseUrl);
  }

  deeplinks(p: { reference: string; paymentId: string; amount: string; currency: string }): AppDeeplinks {
    return sandboxDeeplinks(this.baseUrl, p);
  }

  get code(): string {
    return this.client.code;
  }

  startPayment(request: StartPaymentRequest, opts: { timeoutMs: number }): Promise<ProviderAnswer> {
    return this.client.start(
      {
        kind: 'payment',
        dispatchId: request.paymentId,
        reference: request.orderId,
        amount: request.amount,
        currency: request.currency,
        ...(request.tokenStandard ? { tokenStandard: request.tokenStandard } : {}),
        ...(request.cardNumber ? { cards: { 'payer.cardNumber': request.cardNumber } } : {}),
        ...(request.app ? { app: true } : {}),
      },
      opts,
    );
  }
}
