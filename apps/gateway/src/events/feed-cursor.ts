/**
 * The events feed's cursor: opaque to the merchant, so its form can change without breaking anyone
 * (decision 101). Today it is base64url of `v1.<position>`, a position in the shop's feed; a cursor
 * is only ever compared within the shop whose key reads it, so it carries no shop.
 */
const FORM = /^v1\.(0|[1-9][0-9]{0,15})$/;
const BASE64URL = /^[A-Za-z0-9_-]{1,64}$/;

export function encodeFeedCursor(position: number): string {
  if (!Number.isSafeInteger(position) || position < 0) throw new RangeError(`not a feed position: ${position}`);
  return Buffer.from(`v1.${position}`, 'utf8').toString('base64url');
}

/** The position a cursor names, or null when it is not one this feed made. */
export function decodeFeedCursor(cursor: string): number | null {
  if (!BASE64URL.test(cursor)) return null;
  const match = FORM.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) return null;
  const position = Number(match[1]);
  // Only the one spelling this feed makes: no padding variants or trailing bits that decode alike.
  if (!Number.isSafeInteger(position) || encodeFeedCursor(position) !== cursor) return null;
  return position;
}
