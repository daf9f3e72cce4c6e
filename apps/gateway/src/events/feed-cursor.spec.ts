import { decodeFeedCursor, encodeFeedCursor } from './feed-cursor';

describe('feed cursor', () => {
  it.each([0, 1, 42, 1_000_000, Number.MAX_SAFE_INTEGER])(
    'when position %p is encoded, then decoding the cursor gives it back',
    (position) => {
      const cursor = encodeFeedCursor(position);
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(decodeFeedCursor(cursor)).toBe(position);
    },
  );

  it('when two positions are encoded, then their cursors differ and do not show the number', () => {
    expect(encodeFeedCursor(7)).not.toBe(encodeFeedCursor(8));
    expect(encodeFeedCursor(12345)).not.toContain('12345');
  });

  it.each([
    ['an empty string', ''],
    ['a bare number', '42'],
    ['characters outside base64url', 'djEuNDI='],
    ['base64url of another form', Buffer.from('v2.42').toString('base64url')],
    ['base64url of a negative position', Buffer.from('v1.-1').toString('base64url')],
    ['base64url of a leading zero', Buffer.from('v1.042').toString('base64url')],
    ['base64url of a position past 2^53', Buffer.from('v1.9007199254740993').toString('base64url')],
    ['base64url of text', Buffer.from('hello').toString('base64url')],
    ['a valid cursor with a character appended', `${encodeFeedCursor(42)}A`],
    ['too long', 'A'.repeat(65)],
  ])('when the cursor is %s, then it is refused', (_case, cursor) => {
    expect(decodeFeedCursor(cursor)).toBeNull();
  });

  it.each([-1, 1.5, Number.MAX_SAFE_INTEGER + 1])('when position %p is encoded, then it throws', (position) => {
    expect(() => encodeFeedCursor(position)).toThrow(RangeError);
  });
});
