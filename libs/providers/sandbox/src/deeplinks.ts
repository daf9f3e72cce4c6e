/** What an app payment asks of the payer: open the bank app (deeplink) or its page (universal link, QR). */
export interface AppDeeplinks {
  /** `sandboxpay://pay?...`: opens the SandboxPay app where it is installed. */
  app: string;
  /** An https page of the provider that plays the bank app; what the QR code holds. */
  universal: string;
}

/**
 * The sandbox acquirer's deeplinks for one app payment (ARCHITECTURE.md section 8). Pure: the
 * provider adapter builds them from the payment it is about to start, so the page can show them
 * at once; the universal link lands on provider-sandbox's `/app/pay/{paymentId}` page.
 */
export function sandboxDeeplinks(
  sandboxPublicUrl: string,
  p: { reference: string; paymentId: string; amount: string; currency: string },
): AppDeeplinks {
  const query = new URLSearchParams({ ref: p.reference, payment: p.paymentId, amount: p.amount, currency: p.currency });
  const universal = new URL(`${sandboxPublicUrl.replace(/\/+$/, '')}/app/pay/${encodeURIComponent(p.paymentId)}`);
  universal.searchParams.set('ref', p.reference);
  return { app: `sandboxpay://pay?${query.toString()}`, universal: universal.toString() };
}
