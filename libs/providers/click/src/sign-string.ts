import { createHash, timingSafeEqual } from 'node:crypto';

/** The fields the signature covers; `merchant_prepare_id` only in a Complete. */
export interface ClickSignedFields {
  click_trans_id: string;
  service_id: string;
  merchant_trans_id: string;
  merchant_prepare_id?: string;
  amount: string;
  action: string;
  sign_time: string;
}

/**
 * `sign_string` as "Click-API – Request" (https://docs.click.uz/en/click-api-request/) defines it:
 * md5(click_trans_id + service_id + SECRET_KEY + merchant_trans_id [+ merchant_prepare_id] +
 * amount + action + sign_time), the values exactly as sent (the amount as Click wrote it), in hex.
 */
export function clickSignString(f: ClickSignedFields, secretKey: string): string {
  const text =
    f.click_trans_id +
    f.service_id +
    secretKey +
    f.merchant_trans_id +
    (f.merchant_prepare_id ?? '') +
    f.amount +
    f.action +
    f.sign_time;
  return createHash('md5').update(text, 'utf8').digest('hex');
}

/** Whether a request's `sign_string` is the one its fields and the shop's secret key make (constant time). */
export function clickSignatureValid(f: ClickSignedFields & { sign_string: string }, secretKey: string): boolean {
  const expected = Buffer.from(clickSignString(f, secretKey), 'utf8');
  const given = Buffer.from(f.sign_string.toLowerCase(), 'utf8');
  return expected.length === given.length && timingSafeEqual(expected, given);
}
