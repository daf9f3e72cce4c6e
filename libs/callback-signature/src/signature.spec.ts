import { createHmac } from 'node:crypto';
import { sign, SIGNATURE_TOLERANCE_SECONDS, signWithEach, verifySignature } from './signature';

const SECRET = 'sandbox-secret';
const OTHER_SECRET = 'another-secret';
const NOW = 1_760_000_000;
const BODY =
  '{"eventId":"evt-1","kind":"payment","reference":"ord-1","status":"success","amount":"100.00","currency":"USD"}';

/** Computed independently of `sign`, so a change in the scheme shows up here. */
function hmac(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

describe('sign', () => {
  it('when a body is signed, then the header is t=<seconds>,v1=<HMAC-SHA256 of "<t>.<body>">', () => {
    expect(sign(SECRET, BODY, NOW)).toBe(`t=${NOW},v1=${hmac(SECRET, NOW, BODY)}`);
  });

  it('when the body is given as bytes, then the signature is the same as for the string', () => {
    expect(sign(SECRET, Buffer.from(BODY, 'utf8'), NOW)).toBe(sign(SECRET, BODY, NOW));
  });
});

describe('verifySignature', () => {
  const valid = sign(SECRET, BODY, NOW);
  const v1 = valid.split('v1=')[1];

  it.each([
    ['signed now', valid, BODY, NOW],
    ['signed now, body as bytes', valid, Buffer.from(BODY), NOW],
    ['signed exactly at the tolerance in the past', sign(SECRET, BODY, NOW - SIGNATURE_TOLERANCE_SECONDS), BODY, NOW],
    ['signed exactly at the tolerance in the future', sign(SECRET, BODY, NOW + SIGNATURE_TOLERANCE_SECONDS), BODY, NOW],
    ['spaces around the parts', `t=${NOW}, v1=${v1}`, BODY, NOW],
    ['upper-case hex', `t=${NOW},v1=${v1.toUpperCase()}`, BODY, NOW],
    ['parts in another order', `v1=${v1},t=${NOW}`, BODY, NOW],
    ['unknown extra parts', `t=${NOW},v0=abc,v1=${v1}`, BODY, NOW],
    ['an empty body', sign(SECRET, '', NOW), '', NOW],
  ])('when the header is valid (%s), then the signature is accepted with its timestamp', (_case, header, body, now) => {
    const result = verifySignature(header, body, SECRET, now);
    expect(result.kind).toBe('valid');
    if (result.kind === 'valid') expect(result.timestamp).toBe(Number(/t=(\d+)/.exec(header)![1]));
  });

  it.each([
    ['the new secret first', `t=${NOW},v1=${hmac(SECRET, NOW, BODY)},v1=${hmac(OTHER_SECRET, NOW, BODY)}`],
    ['the new secret second', `t=${NOW},v1=${hmac(OTHER_SECRET, NOW, BODY)},v1=${hmac(SECRET, NOW, BODY)}`],
    ['a malformed value before the good one', `t=${NOW},v1=zz,v1=${hmac(SECRET, NOW, BODY)}`],
  ])(
    'when the header carries several v1 values during a secret rotation (%s), then the matching one is accepted',
    (_case, header) => {
      expect(verifySignature(header, BODY, SECRET, NOW)).toEqual({ kind: 'valid', timestamp: NOW });
    },
  );

  it.each([
    ['the header is missing', undefined, BODY, SECRET, NOW, 'missing signature header'],
    ['the header is empty', '', BODY, SECRET, NOW, 'missing signature header'],
    ['the body was changed', valid, BODY.replace('100.00', '1000.00'), SECRET, NOW, 'signature mismatch'],
    ['the body was re-serialized', valid, JSON.stringify(JSON.parse(BODY), null, 2), SECRET, NOW, 'signature mismatch'],
    ['one byte of the body was appended', valid, BODY + ' ', SECRET, NOW, 'signature mismatch'],
    ['the secret is another one', valid, BODY, OTHER_SECRET, NOW, 'signature mismatch'],
    [
      'the timestamp was changed after signing',
      valid.replace(`t=${NOW}`, `t=${NOW + 1}`),
      BODY,
      SECRET,
      NOW,
      'signature mismatch',
    ],
    [
      'every v1 value is wrong',
      `t=${NOW},v1=${hmac(OTHER_SECRET, NOW, BODY)},v1=${hmac('third', NOW, BODY)}`,
      BODY,
      SECRET,
      NOW,
      'signature mismatch',
    ],
    ['v1 is missing', `t=${NOW}`, BODY, SECRET, NOW, 'signature mismatch'],
    ['v1 is too short', `t=${NOW},v1=${v1.slice(0, 62)}`, BODY, SECRET, NOW, 'signature mismatch'],
    ['v1 is not hex', `t=${NOW},v1=${'g'.repeat(64)}`, BODY, SECRET, NOW, 'signature mismatch'],
    ['the timestamp is missing', `v1=${v1}`, BODY, SECRET, NOW, 'missing or malformed timestamp'],
    ['the timestamp is not a number', `t=abc,v1=${v1}`, BODY, SECRET, NOW, 'missing or malformed timestamp'],
    ['the timestamp is negative', `t=-1,v1=${v1}`, BODY, SECRET, NOW, 'missing or malformed timestamp'],
    [
      'the timestamp is in milliseconds-like huge form',
      `t=${NOW}000000,v1=${v1}`,
      BODY,
      SECRET,
      NOW,
      'missing or malformed timestamp',
    ],
    ['the timestamp is empty', `t=,v1=${v1}`, BODY, SECRET, NOW, 'missing or malformed timestamp'],
    ['a part has no "="', `t=${NOW},v1`, BODY, SECRET, NOW, 'malformed signature header'],
    ['a part has no name', `=${NOW},v1=${v1}`, BODY, SECRET, NOW, 'malformed signature header'],
    ['the header is free text', 'garbage', BODY, SECRET, NOW, 'malformed signature header'],
    ['the header is a bare HMAC', v1, BODY, SECRET, NOW, 'malformed signature header'],
  ])('when %s, then the signature is rejected', (_case, header, body, secret, now, reason) => {
    expect(verifySignature(header, body, secret, now)).toEqual({ kind: 'invalid', reason });
  });

  it.each([
    ['one second too old', NOW - SIGNATURE_TOLERANCE_SECONDS - 1],
    ['one second too far in the future', NOW + SIGNATURE_TOLERANCE_SECONDS + 1],
    ['a day old', NOW - 86_400],
    ['a day in the future', NOW + 86_400],
  ])('when the signature is correct but %s, then it is rejected as outside the tolerance', (_case, signedAt) => {
    expect(verifySignature(sign(SECRET, BODY, signedAt), BODY, SECRET, NOW)).toEqual({
      kind: 'invalid',
      reason: 'timestamp outside tolerance',
    });
  });

  it('when a caller asks for a narrower tolerance, then it is applied', () => {
    const header = sign(SECRET, BODY, NOW - 61);
    expect(verifySignature(header, BODY, SECRET, NOW, 60)).toEqual({
      kind: 'invalid',
      reason: 'timestamp outside tolerance',
    });
    expect(verifySignature(header, BODY, SECRET, NOW, 61)).toEqual({ kind: 'valid', timestamp: NOW - 61 });
  });
});

describe('signWithEach', () => {
  it('when a secret is being rotated, then the header carries one v1 per secret and verifies under each', () => {
    const body = '{"a":1}';
    const header = signWithEach(['new-secret', 'old-secret'], body, 1_700_000_000);
    expect(header.match(/v1=/g)).toHaveLength(2);
    expect(verifySignature(header, body, 'new-secret', 1_700_000_000).kind).toBe('valid');
    expect(verifySignature(header, body, 'old-secret', 1_700_000_000).kind).toBe('valid');
    expect(verifySignature(header, body, 'another', 1_700_000_000).kind).toBe('invalid');
  });
});
