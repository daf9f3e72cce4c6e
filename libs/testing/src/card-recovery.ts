import { createHash, createHmac } from 'node:crypto';
import { luhnValid } from '@payments/methods-domain';

export interface RecoveryAttempt {
  /** The card number found, or undefined when no candidate matched anything held. */
  recovered: string | undefined;
  /** The Luhn-valid candidates hashed. */
  candidates: number;
  /** How many values the attacker had to compare with. */
  held: number;
  ms: number;
}

/**
 * The security review's attack on an erased card (issue 28, decision 259), as an attacker who
 * reads the database and holds the fingerprint key would run it: every number of `length` digits
 * with the known BIN and last 4 and a valid Luhn digit (10^5 for 16 digits) is hashed as the vault
 * fingerprints a card (HMAC-SHA256 under the fingerprint key) and, for good measure, with a plain
 * SHA-256, each in base64url, base64 and hex, and compared with every value the attacker holds
 * (every column of the card's row). A match is the card number recovered. `alsoHashed` adds
 * other things an attacker would compute of a candidate (the SHA-256 of a request body that held
 * it, as an idempotency record keeps).
 */
export function recoverCardNumber(opts: {
  held: readonly unknown[];
  bin: string;
  last4: string;
  length: number;
  fingerprintKey: Buffer;
  alsoHashed?: (pan: string) => string[];
}): RecoveryAttempt {
  const started = process.hrtime.bigint();
  const held = new Set(opts.held.filter((v) => v !== null && v !== undefined).map((v) => String(v)));
  const free = opts.length - opts.bin.length - opts.last4.length;
  let candidates = 0;
  let recovered: string | undefined;
  for (let middle = 0; middle < 10 ** free && !recovered; middle++) {
    const pan = `${opts.bin}${String(middle).padStart(free, '0')}${opts.last4}`;
    if (!luhnValid(pan)) continue;
    candidates++;
    const digests = [
      createHmac('sha256', opts.fingerprintKey).update(pan, 'utf8').digest(),
      createHash('sha256').update(pan, 'utf8').digest(),
    ];
    const forms = [
      pan,
      ...digests.flatMap((d) => [d.toString('base64url'), d.toString('base64'), d.toString('hex')]),
      ...(opts.alsoHashed?.(pan) ?? []),
    ];
    if (forms.some((f) => held.has(f))) recovered = pan;
  }
  return { recovered, candidates, held: held.size, ms: Number(process.hrtime.bigint() - started) / 1e6 };
}
