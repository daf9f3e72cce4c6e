import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * `X-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`: providers sign
 * their callbacks to us this way, and we sign ours to merchants the same way. Checked over the raw
 * bytes: a re-serialized JSON body would not match. Only node:crypto, so merchants can copy it.
 */
export const SIGNATURE_HEADER = 'x-signature';
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export function sign(secret: string, rawBody: string | Buffer, timestampSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${timestampSeconds}.`).update(rawBody).digest('hex');
  return `t=${timestampSeconds},v1=${mac}`;
}

/**
 * One header with a `v1=` per secret (the newest first): while a merchant's secret is being
 * rotated, callbacks verify under the old secret and the new one alike.
 */
export function signWithEach(secrets: readonly string[], rawBody: string | Buffer, timestampSeconds: number): string {
  const macs = secrets.map((s) => sign(s, rawBody, timestampSeconds).split('v1=')[1]);
  return [`t=${timestampSeconds}`, ...macs.map((m) => `v1=${m}`)].join(',');
}

export type SignatureCheck = { kind: 'valid'; timestamp: number } | { kind: 'invalid'; reason: string };

export function verifySignature(
  header: string | undefined,
  rawBody: string | Buffer,
  secret: string,
  nowSeconds: number,
  toleranceSeconds = SIGNATURE_TOLERANCE_SECONDS,
): SignatureCheck {
  if (!header) return { kind: 'invalid', reason: 'missing signature header' };
  const parts = new Map<string, string[]>();
  for (const part of header.split(',')) {
    const i = part.indexOf('=');
    if (i <= 0) return { kind: 'invalid', reason: 'malformed signature header' };
    const k = part.slice(0, i).trim();
    parts.set(k, [...(parts.get(k) ?? []), part.slice(i + 1).trim()]);
  }
  const t = parts.get('t')?.[0];
  if (!t || !/^[0-9]{1,12}$/.test(t)) return { kind: 'invalid', reason: 'missing or malformed timestamp' };
  const timestamp = Number(t);
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds)
    return { kind: 'invalid', reason: 'timestamp outside tolerance' };
  const expected = Buffer.from(sign(secret, rawBody, timestamp).split('v1=')[1], 'hex');
  // Several v1 values are allowed so a secret can be rotated without downtime.
  for (const candidate of parts.get('v1') ?? []) {
    if (!/^[0-9a-f]{64}$/i.test(candidate)) continue;
    const got = Buffer.from(candidate, 'hex');
    if (got.length === expected.length && timingSafeEqual(got, expected)) return { kind: 'valid', timestamp };
  }
  return { kind: 'invalid', reason: 'signature mismatch' };
}
