'use strict';
// node --test examples/merchant-callback-verify/   (no dependencies)
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { createHmac } = require('node:crypto');
const { verifyCallback } = require('./verify');

const SECRET = 'whsec_test';
const NOW = 1_763_700_000;
const BODY =
  '{"eventId":"7d1f0a52-3c1e-4b59-9f5e-2f4f3f0b6d11","type":"order.status_changed","sequence":3,"status":"completed"}';
const signed = (body, t = NOW, secret = SECRET) =>
  `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;

test('when the signature is over the raw body with the shop secret, then it is valid', () => {
  assert.deepEqual(verifyCallback(BODY, signed(BODY), SECRET, { nowSeconds: NOW + 10 }), {
    valid: true,
    timestamp: NOW,
  });
  assert.equal(verifyCallback(Buffer.from(BODY), signed(BODY), SECRET, { nowSeconds: NOW }).valid, true);
});

test('when the body was re-serialized, then the signature does not match', () => {
  const reserialized = JSON.stringify(JSON.parse(BODY), null, 2);
  assert.deepEqual(verifyCallback(reserialized, signed(BODY), SECRET, { nowSeconds: NOW }), {
    valid: false,
    reason: 'signature mismatch',
  });
});

test('when another secret signed it, then it is refused', () => {
  assert.equal(verifyCallback(BODY, signed(BODY, NOW, 'other'), SECRET, { nowSeconds: NOW }).valid, false);
});

test('when the timestamp is older than the tolerance, then it is refused', () => {
  assert.deepEqual(verifyCallback(BODY, signed(BODY, NOW - 301), SECRET, { nowSeconds: NOW }), {
    valid: false,
    reason: 'timestamp outside tolerance',
  });
  assert.equal(
    verifyCallback(BODY, signed(BODY, NOW - 301), SECRET, { nowSeconds: NOW, toleranceSeconds: 600 }).valid,
    true,
  );
});

test('when the header is missing or malformed, then it is refused', () => {
  assert.equal(verifyCallback(BODY, undefined, SECRET, { nowSeconds: NOW }).reason, 'missing X-Signature header');
  assert.equal(verifyCallback(BODY, 'garbage', SECRET, { nowSeconds: NOW }).reason, 'malformed X-Signature header');
  assert.equal(verifyCallback(BODY, `t=${NOW},v1=zz`, SECRET, { nowSeconds: NOW }).reason, 'signature mismatch');
});
