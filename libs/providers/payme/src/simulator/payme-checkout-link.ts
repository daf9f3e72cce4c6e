/** What a Payme checkout link carries (payme-checkout.ts builds it): the cashbox, the order, the amount in tiyin. */
export interface PaymeCheckoutParams {
  merchantId: string;
  orderId: string;
  /** In tiyin, as the link writes it. */
  amount: number;
  /** `c`: where the payer goes back to, as given (a `;` in it percent-encoded). */
  returnUrl?: string;
}

/**
 * Reads the base64 part of a Payme checkout link (`m=…;ac.order_id=…;a=…[;c=…]`), as Payme's
 * checkout does before it shows the payer anything. An error names the parameter and why; other
 * parameters Payme knows (`l`, `cr`, `ct`) are ignored.
 */
export function decodePaymeCheckout(
  encoded: string,
): { ok: true; value: PaymeCheckoutParams } | { ok: false; error: string } {
  const b64 = encoded.replace(/-/g, '+').replace(/_/g, '/');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length > 4096) return { ok: false, error: 'the link is not base64' };
  const text = Buffer.from(b64, 'base64').toString('utf8');
  const params = new Map<string, string>();
  for (const part of text.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) params.set(part.slice(0, eq), part.slice(eq + 1));
  }
  const m = params.get('m') ?? '';
  const orderId = params.get('ac.order_id') ?? '';
  const a = params.get('a') ?? '';
  if (!/^[0-9a-f]{24}$/.test(m)) return { ok: false, error: 'm must be the 24 hex digits of a Payme merchant id' };
  if (orderId.length < 1 || orderId.length > 128)
    return { ok: false, error: 'ac.order_id must be 1 to 128 characters' };
  if (!/^[1-9][0-9]{0,15}$/.test(a) || !Number.isSafeInteger(Number(a)))
    return { ok: false, error: 'a must be the amount in tiyin, a positive integer of at most 2^53 - 1' };
  const c = params.get('c');
  return { ok: true, value: { merchantId: m, orderId, amount: Number(a), ...(c ? { returnUrl: c } : {}) } };
}
