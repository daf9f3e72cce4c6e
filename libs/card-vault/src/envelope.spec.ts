import { randomBytes } from 'node:crypto';
import { EnvelopeError, KeyRing, parseKeyList } from './envelope';

const key = (id: string) => ({ id, key: randomBytes(32) });

describe('KeyRing (AES-256-GCM envelope)', () => {
  const k1 = key('k1');
  const k2 = key('k2');

  it('when a value is sealed and opened with the same associated data, then the plaintext comes back', () => {
    const ring = new KeyRing([k1]);
    const sealed = ring.seal('4111111111111111', 'card_a');
    expect(sealed).toMatch(/^v1:k1:/);
    expect(sealed).not.toContain('4111111111111111');
    expect(ring.open(sealed, 'card_a')).toBe('4111111111111111');
  });

  it('when the same value is sealed twice, then the ciphertexts differ (a fresh IV each time)', () => {
    const ring = new KeyRing([k1]);
    expect(ring.seal('x', 'a')).not.toBe(ring.seal('x', 'a'));
  });

  it('when several keys are configured, then the last one seals and every one opens', () => {
    const old = new KeyRing([k1]).seal('4111111111111111', 't');
    const ring = new KeyRing([k1, k2]);
    expect(ring.activeKeyId).toBe('k2');
    expect(KeyRing.keyIdOf(ring.seal('y', 't'))).toBe('k2');
    expect(ring.open(old, 't')).toBe('4111111111111111');
  });

  it.each([
    ['the ciphertext', 3],
    ['the tag', 4],
    ['the IV', 2],
  ])('when one bit of %s is flipped, then opening is refused, not decrypted to garbage', (_part, index) => {
    const ring = new KeyRing([k1]);
    const parts = ring.seal('4111111111111111', 't').split(':');
    const bytes = Buffer.from(parts[index], 'base64url');
    bytes[0] ^= 0x01;
    parts[index] = bytes.toString('base64url');
    expect(() => ring.open(parts.join(':'), 't')).toThrow(EnvelopeError);
    expect(() => ring.open(parts.join(':'), 't')).toThrow(/failed authentication|malformed/);
  });

  it('when a ciphertext is moved to another token (other associated data), then opening is refused', () => {
    const ring = new KeyRing([k1]);
    expect(() => ring.open(ring.seal('4111111111111111', 'card_a'), 'card_b')).toThrow(/failed authentication/);
  });

  it('when the key id names a key that is not configured, then the error says so', () => {
    const sealed = new KeyRing([k2]).seal('x', 't');
    expect(() => new KeyRing([k1]).open(sealed, 't')).toThrow(/key "k2", which is not configured/);
  });

  it('when the key id is swapped for another configured key, then authentication fails', () => {
    const ring = new KeyRing([k1, k2]);
    const swapped = ring.seal('x', 't').replace(':k2:', ':k1:');
    expect(() => ring.open(swapped, 't')).toThrow(/failed authentication/);
  });

  it.each([['not sealed'], ['v2:k1:a:b:c'], ['v1:k1:a:b']])(
    'when %s is opened, then it is refused as malformed',
    (s) => {
      expect(() => new KeyRing([k1]).open(s, 't')).toThrow(EnvelopeError);
    },
  );

  it.each([
    [[{ id: 'k1', key: randomBytes(16) }], /must be 32 bytes/],
    [[k1, k1], /given twice/],
    [[{ id: 'a:b', key: randomBytes(32) }], /must be 1 to 32 letters/],
    [[], /at least one key/],
  ])('when a key ring is built from bad keys, then it throws naming the problem (%#)', (keys, message) => {
    expect(() => new KeyRing(keys)).toThrow(message);
  });
});

describe('parseKeyList (CARD_VAULT_KEYS)', () => {
  const b64 = randomBytes(32).toString('base64');

  it('when ids and 32-byte base64 keys are listed, then they come back in order', () => {
    const parsed = parseKeyList(`old:${b64}, new:${randomBytes(32).toString('base64')}`);
    expect('keys' in parsed && parsed.keys.map((k) => k.id)).toEqual(['old', 'new']);
  });

  it.each([
    ['', /at least one key/],
    [b64, /must be a list/],
    [`k1:${randomBytes(16).toString('base64')}`, /must be 32 bytes/],
    [`k1:${b64},k1:${b64}`, /given twice/],
    [`k 1:${b64}`, /key id/],
  ])('when the list is %j, then the problem is named without the key material', (raw, problem) => {
    const parsed = parseKeyList(raw);
    expect('problem' in parsed && parsed.problem).toMatch(problem);
    expect(JSON.stringify(parsed)).not.toContain(b64);
  });
});
