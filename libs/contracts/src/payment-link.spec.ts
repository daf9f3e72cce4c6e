import { randomBytes } from 'node:crypto';
import { deriveLinkKey, isLinkTokenOf, linkHashOf, linkToken, parseLinkToken } from './payment-link';

describe('payment link tokens: unguessable, single-purpose, stored hashed', () => {
  const key = deriveLinkKey(randomBytes(32));
  const id = '0b6f7a3e-2c1d-4e5f-9a8b-7c6d5e4f3a21';

  it('when a token is made for an order, then it names the order and its hash, and only that key makes it', () => {
    const token = linkToken(key, 'order', id);
    expect(token).toMatch(/^o[A-Za-z0-9_-]{64}$/);
    expect(parseLinkToken('order', token)).toEqual({ id, linkHash: linkHashOf(token) });
    expect(isLinkTokenOf(key, 'order', id, token)).toBe(true);
    expect(isLinkTokenOf(deriveLinkKey(randomBytes(32)), 'order', id, token)).toBe(false);
  });

  it('when the same id is linked for a payout, then the token differs and does not parse as an order link', () => {
    const order = linkToken(key, 'order', id);
    const payout = linkToken(key, 'payout', id);
    expect(payout).not.toBe(order);
    expect(payout.slice(1, 22)).toBe(order.slice(1, 22)); // the same id in front …
    expect(payout.slice(23)).not.toBe(order.slice(23)); // … under another MAC
    expect(parseLinkToken('order', payout)).toBeNull();
    expect(isLinkTokenOf(key, 'order', id, payout)).toBe(false);
  });

  it.each([1, 10, 22, 40, 64])(
    'when a token is tampered with at character %i, then the verification refuses it',
    (at) => {
      const token = linkToken(key, 'order', id);
      const flipped = token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
      expect(isLinkTokenOf(key, 'order', id, token)).toBe(true);
      expect(isLinkTokenOf(key, 'order', id, flipped)).toBe(false);
      const parsed = parseLinkToken('order', flipped);
      // Whatever id it names now, the key does not make this token for it, and its hash is another.
      if (parsed) {
        expect(isLinkTokenOf(key, 'order', parsed.id, flipped)).toBe(false);
        expect(parsed.linkHash).not.toBe(linkHashOf(token));
      }
    },
  );

  it.each(['', 'o', `o${'A'.repeat(63)}`, `o${'A'.repeat(65)}`, `x${'A'.repeat(64)}`, `o${'+'.repeat(64)}`, id])(
    'when %j is given as a token, then it is not one',
    (junk) => expect(parseLinkToken('order', junk)).toBeNull(),
  );

  it('when the hash is taken, then it is SHA-256 hex of the whole token: 256 bits of MAC behind it', () => {
    expect(linkHashOf('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
