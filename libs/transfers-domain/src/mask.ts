/**
 * Card and account numbers never leave the service in full (responses, logs): any value with 9
 * or more digits keeps its last 4 (card numbers their first 6 too, the BIN, as receipts do).
 * E.164 phone numbers are contact data and stay as they are.
 */
export function maskNumber(value: string): string {
  // A phone number is how the payee is reached, not an account: it stays readable.
  if (/^\+[0-9]{7,15}$/.test(value)) return value;
  const digits = value.replace(/[^0-9]/g, '');
  if (digits.length < 9) return value;
  const keepStart = /^[0-9]{12,19}$/.test(value) ? 6 : 0;
  return value.slice(0, keepStart) + '*'.repeat(value.length - keepStart - 4) + value.slice(-4);
}

/** A copy of a payee or party object with every long number masked, nested objects included. */
export function maskDetails<T extends Record<string, unknown>>(details: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(details)) {
    if (typeof v === 'string') out[k] = maskNumber(v);
    else if (v && typeof v === 'object' && !Array.isArray(v)) out[k] = maskDetails(v as Record<string, unknown>);
    else out[k] = v;
  }
  return out as T;
}
