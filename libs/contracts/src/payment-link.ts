import { createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/**
 * The token in a hosted payment link (ARCHITECTURE.md section 8, docs/decisions.md 125): the order
 * id (16 bytes, so the page can key its Kafka request by it) followed by an HMAC-SHA256 of the
 * purpose and the id under a key only the gateway uses (256 bits a guesser must find). The
 * orders service stores only its SHA-256; the gateway can show the link again from the id.
 */
export type LinkPurpose = 'order' | 'payout';

const PREFIX: Record<LinkPurpose, string> = { order: 'o', payout: 'p' };

/**
 * The link key, derived from a master secret with HKDF so that it serves this one purpose. The
 * master is the card vault's fingerprint key: only the gateway derives the link key, but every
 * service holding that key could (docs/decisions.md 188).
 */
export function deriveLinkKey(master: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), 'payments/checkout-link/v1', 32));
}

function uuidBytes(id: string): Buffer {
  return Buffer.from(id.replace(/-/g, ''), 'hex');
}

function uuidOf(bytes: Buffer): string {
  const h = bytes.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function mac(key: Buffer, purpose: LinkPurpose, id: string): Buffer {
  return createHmac('sha256', key).update(`${purpose}:${id.toLowerCase()}`).digest();
}

/** `o…` or `p…`: the purpose, then base64url of id and MAC (65 characters). */
export function linkToken(key: Buffer, purpose: LinkPurpose, id: string): string {
  return PREFIX[purpose] + Buffer.concat([uuidBytes(id), mac(key, purpose, id)]).toString('base64url');
}

/** What is stored and sent over Kafka instead of the token: its SHA-256, hex. */
export function linkHashOf(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * The id and hash a token names, or null when it cannot be a token of that purpose. The MAC is
 * not checked here (the page has no key): the stored hash is the check, done by the owner.
 */
export function parseLinkToken(purpose: LinkPurpose, token: string): { id: string; linkHash: string } | null {
  if (!/^[op][A-Za-z0-9_-]{64}$/.test(token) || token[0] !== PREFIX[purpose]) return null;
  const raw = Buffer.from(token.slice(1), 'base64url');
  if (raw.length !== 48) return null;
  return { id: uuidOf(raw.subarray(0, 16)), linkHash: linkHashOf(token) };
}

/** Whether `token` is the one the key makes for this id (constant time). */
export function isLinkTokenOf(key: Buffer, purpose: LinkPurpose, id: string, token: string): boolean {
  const expected = Buffer.from(linkToken(key, purpose, id));
  const given = Buffer.from(token);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
