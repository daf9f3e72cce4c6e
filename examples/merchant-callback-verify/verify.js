'use strict';
// Verifies a callback from the payments service. Copy this file into your project: it needs
// nothing but Node's own crypto module (Node 16+).
//
//   const { verifyCallback } = require('./verify');
//   const check = verifyCallback(rawBody, req.headers['x-signature'], process.env.CALLBACK_SECRET);
//   if (!check.valid) return res.status(401).end();
//
// `rawBody` must be the bytes exactly as received (a Buffer or the string before any JSON
// parsing): re-serializing parsed JSON changes the bytes and the signature no longer matches.
const { createHmac, timingSafeEqual } = require('node:crypto');

const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * @param {Buffer|string} rawBody the request body as received
 * @param {string|undefined} header the X-Signature header: "t=<unix seconds>,v1=<hex>"
 * @param {string} secret the shop's callback secret
 * @param {{ toleranceSeconds?: number, nowSeconds?: number }} [options]
 * @returns {{ valid: true, timestamp: number } | { valid: false, reason: string }}
 */
function verifyCallback(rawBody, header, secret, options = {}) {
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (typeof header !== 'string' || header.length === 0) return { valid: false, reason: 'missing X-Signature header' };
  let timestamp;
  const candidates = [];
  for (const part of header.split(',')) {
    const i = part.indexOf('=');
    if (i <= 0) return { valid: false, reason: 'malformed X-Signature header' };
    const key = part.slice(0, i).trim();
    const value = part.slice(i + 1).trim();
    if (key === 't' && timestamp === undefined) timestamp = value;
    if (key === 'v1') candidates.push(value);
  }
  if (!timestamp || !/^[0-9]{1,12}$/.test(timestamp)) return { valid: false, reason: 'missing or malformed timestamp' };
  // A captured callback replayed later is refused: the timestamp is signed with the body.
  if (Math.abs(now - Number(timestamp)) > tolerance) return { valid: false, reason: 'timestamp outside tolerance' };
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
  for (const candidate of candidates) {
    if (!/^[0-9a-f]{64}$/i.test(candidate)) continue;
    const given = Buffer.from(candidate, 'hex');
    if (timingSafeEqual(given, expected)) return { valid: true, timestamp: Number(timestamp) };
  }
  return { valid: false, reason: 'signature mismatch' };
}

module.exports = { verifyCallback, DEFAULT_TOLERANCE_SECONDS };
