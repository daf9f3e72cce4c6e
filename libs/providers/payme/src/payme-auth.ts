import { timingSafeEqual } from 'node:crypto';

/**
 * Payme authenticates with `Authorization: Basic base64("Paycom:<merchant key>")`. Anything else —
 * no header, another scheme, another login or key — is -32504 Insufficient privilege.
 */
export function paymeAuthorized(header: string | undefined, merchantKey: string): boolean {
  const m = /^Basic ([A-Za-z0-9+/=]+)$/.exec(header ?? '');
  if (!m) return false;
  const given = Buffer.from(Buffer.from(m[1], 'base64').toString('utf8'), 'utf8');
  const expected = Buffer.from(`Paycom:${merchantKey}`, 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The header Payme (or its simulator) sends. */
export function paymeAuthorization(merchantKey: string): string {
  return `Basic ${Buffer.from(`Paycom:${merchantKey}`, 'utf8').toString('base64')}`;
}
