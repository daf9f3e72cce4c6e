import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** Why a sealed value was not opened: never a guess at the plaintext. */
export class EnvelopeError extends Error {
  override readonly name = 'EnvelopeError';
}

const VERSION = 'v1';
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * AES-256-GCM keys by id; the last one given is the active key that seals, every one of them
 * opens. One implementation for every secret kept at rest (card numbers, shop callback secrets).
 */
export class KeyRing {
  private readonly keys: ReadonlyMap<string, Buffer>;
  readonly activeKeyId: string;

  constructor(keys: ReadonlyArray<{ id: string; key: Buffer }>) {
    if (keys.length === 0) throw new EnvelopeError('a key ring needs at least one key');
    const map = new Map<string, Buffer>();
    for (const { id, key } of keys) {
      if (!KEY_ID.test(id)) throw new EnvelopeError(`key id "${id}" must be 1 to 32 letters, digits, "_" or "-"`);
      if (key.length !== 32) throw new EnvelopeError(`key "${id}" must be 32 bytes, got ${key.length}`);
      if (map.has(id)) throw new EnvelopeError(`key id "${id}" is given twice`);
      map.set(id, key);
    }
    this.keys = map;
    this.activeKeyId = keys[keys.length - 1].id;
  }

  get keyIds(): string[] {
    return [...this.keys.keys()];
  }

  has(keyId: string): boolean {
    return this.keys.has(keyId);
  }

  /**
   * `v1:<key id>:<iv>:<ciphertext>:<tag>` (base64url). The associated data binds the ciphertext to
   * what it belongs to (a card's token, a shop's id): moved to another row, it no longer opens.
   */
  seal(plaintext: string, associatedData: string): string {
    const keyId = this.activeKeyId;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(keyId)!, iv);
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [VERSION, keyId, iv.toString('base64url'), ciphertext.toString('base64url'), tag.toString('base64url')].join(
      ':',
    );
  }

  /** Opens a sealed value, or throws EnvelopeError: unknown key, malformed, or altered (GCM authentication fails). */
  open(sealed: string, associatedData: string): string {
    const parts = sealed.split(':');
    if (parts.length !== 5 || parts[0] !== VERSION) throw new EnvelopeError('not a sealed value of version v1');
    const [, keyId, iv, ciphertext, tag] = parts;
    const key = this.keys.get(keyId);
    if (!key) throw new EnvelopeError(`sealed under key "${keyId}", which is not configured`);
    const ivBytes = Buffer.from(iv, 'base64url');
    const tagBytes = Buffer.from(tag, 'base64url');
    if (ivBytes.length !== 12 || tagBytes.length !== 16) throw new EnvelopeError('malformed sealed value');
    const decipher = createDecipheriv('aes-256-gcm', key, ivBytes, { authTagLength: 16 });
    decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(tagBytes);
    try {
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new EnvelopeError(`sealed value failed authentication under key "${keyId}": altered or not ours`);
    }
  }

  /** The key id a sealed value names, without opening it. */
  static keyIdOf(sealed: string): string {
    const parts = sealed.split(':');
    if (parts.length !== 5 || parts[0] !== VERSION) throw new EnvelopeError('not a sealed value of version v1');
    return parts[1];
  }
}

/**
 * `id:base64key,id:base64key`: the format of CARD_VAULT_KEYS. Answers the keys or the problem,
 * never echoing key material.
 */
export function parseKeyList(raw: string): { keys: Array<{ id: string; key: Buffer }> } | { problem: string } {
  const keys: Array<{ id: string; key: Buffer }> = [];
  for (const item of raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const colon = item.indexOf(':');
    if (colon < 0) return { problem: 'must be a list of <key id>:<base64 key of 32 bytes>, separated by commas' };
    const id = item.slice(0, colon);
    const material = item.slice(colon + 1);
    if (!KEY_ID.test(id)) return { problem: `has a key id that is not 1 to 32 letters, digits, "_" or "-"` };
    if (!/^[A-Za-z0-9+/_-]+=*$/.test(material)) return { problem: `key "${id}" is not base64` };
    const key = Buffer.from(material, 'base64');
    if (key.length !== 32) return { problem: `key "${id}" must be 32 bytes (base64), got ${key.length}` };
    if (keys.some((k) => k.id === id)) return { problem: `key id "${id}" is given twice` };
    keys.push({ id, key });
  }
  if (keys.length === 0) return { problem: 'must name at least one key' };
  return { keys };
}
