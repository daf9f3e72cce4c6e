// The card vault's erasure (docs/security.md): an operator erases a card; its number, fingerprint,
// BIN and last 4 go, its token is marked erased, the payout keeps its masked number.
import { createHash, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { http, recoverCardNumber } from '@payments/testing';
import { canonicalJson } from '../../libs/merchant-admin/src/idempotency-request';
import { CallbackReceiver } from '../support/callback-receiver';
import { TestShop } from '../support/merchant';
import { opsUrlOf, TEST_OPS_TOKEN } from '../support/stack';
import { aPayoutRequest } from '../support/transfers';
import { cardVaultStack, masked, testCard } from '../support/card-vault-stack';

describe('card vault: card numbers never stored or published in clear', () => {
  const { started, oldKey, newKey, fingerprintKey, vaultWith, gw, payoutUntil } = cardVaultStack();
  let shop: TestShop;
  let db: Client;
  let receiver: CallbackReceiver;
  beforeAll(() => {
    ({ shop, db, receiver } = started());
  });

  it('when an operator erases a card, then its number, fingerprint, BIN and last 4 are gone, its token is marked erased and the payout keeps its masked number', async () => {
    const key = `idem-${randomUUID()}`;
    const request = aPayoutRequest({
      amount: '10.00',
      payee: { cardNumber: testCard(7), cardHolder: 'JANE DOE' },
      extra: { callbackUrl: receiver.url },
    });
    const payout = (
      await http('POST', `${gw()}/payouts`, { token: shop.apiKey, body: request, headers: { 'idempotency-key': key } })
    ).body;
    const { rows } = await db.query(`SELECT payee_cards FROM payouts.payouts WHERE id = $1`, [payout.id]);
    const token: string = rows[0].payee_cards.cardNumber.token;
    await payoutUntil(payout.id, 'completed');
    // The idempotency record keeps a SHA-256 of the request body, which holds the number: an
    // attacker who rebuilds the body from the stored answer tests the ~10^5 candidates against it.
    const idempotencyRecord = async () =>
      (await db.query(`SELECT * FROM gateway.idempotency_keys WHERE idempotency_key = $1`, [key])).rows[0];
    const bodyAttack = async () =>
      recoverCardNumber({
        held: Object.values(await idempotencyRecord()),
        bin: testCard(7).slice(0, 6),
        last4: testCard(7).slice(-4),
        length: 16,
        fingerprintKey: Buffer.from(fingerprintKey, 'base64'),
        alsoHashed: (pan) => [
          createHash('sha256')
            .update(canonicalJson({ ...request, payee: { ...request.payee, cardNumber: pan } }))
            .digest('hex'),
        ],
      });
    expect((await idempotencyRecord()).card_tokens).toEqual([token]);
    expect((await bodyAttack()).recovered).toBe(testCard(7)); // before erasure: the attack works

    const erased = await http('DELETE', `${opsUrlOf(gw())}/ops/v1/cards/${token}`, { token: TEST_OPS_TOKEN });
    expect(erased.status).toBe(200);
    expect(erased.body).toEqual({ token, erased: true, erasedAt: expect.any(String) });
    const again = await http('DELETE', `${opsUrlOf(gw())}/ops/v1/cards/${token}`, { token: TEST_OPS_TOKEN });
    expect(again.body.erasedAt).toBe(erased.body.erasedAt);
    // The audit record has the token's state before and after, its number masked, never the PAN.
    const audit = await http('GET', `${opsUrlOf(gw())}/ops/v1/audit?action=card.delete&objectId=${token}`, {
      token: TEST_OPS_TOKEN,
    });
    const records = audit.body.items as Array<{ before: unknown; after: unknown }>;
    expect(records.map((r) => r.before).reverse()).toEqual([
      // `token` is a member the log always redacts; the record's objectId names the card.
      { token: '[redacted]', bin: '860000', last4: testCard(7).slice(-4), erased: false, erasedAt: null },
      { token: '[redacted]', bin: null, last4: null, erased: true, erasedAt: erased.body.erasedAt },
    ]);
    expect(records[records.length - 1].after).toMatchObject({ erased: true, erasedAt: erased.body.erasedAt });
    expect(JSON.stringify(audit.body)).not.toContain(testCard(7));
    const stored = await db.query(`SELECT * FROM card_vault.cards WHERE token = $1`, [token]);
    expect(stored.rows[0]).toMatchObject({ ciphertext: null, key_id: null, fingerprint: null, bin: null, last4: null });
    expect(stored.rows[0].erased_at).not.toBeNull();
    // The review's attack (decision 259), with the BIN and last 4 the payout keeps and the stack's
    // fingerprint key, against every value the erased row still holds: nothing is recovered.
    const attack = recoverCardNumber({
      held: Object.values(stored.rows[0]),
      bin: testCard(7).slice(0, 6),
      last4: testCard(7).slice(-4),
      length: 16,
      fingerprintKey: Buffer.from(fingerprintKey, 'base64'),
    });
    expect(attack).toMatchObject({ candidates: 100_000, recovered: undefined });
    // The idempotency record forgot the body's hash, and a replay of the request is refused, not answered.
    expect(await bodyAttack()).toMatchObject({ candidates: 100_000, recovered: undefined });
    const replay = await http('POST', `${gw()}/payouts`, {
      token: shop.apiKey,
      body: request,
      headers: { 'idempotency-key': key },
    });
    expect(replay.status).toBe(422);
    expect(replay.body.detail).toContain('a card since erased');
    const vault = vaultWith(`${oldKey},${newKey}`);
    try {
      await expect(vault.detokenize(token)).rejects.toMatchObject({ reason: 'erased' });
      // The same card given again is a new token: the erased one never comes back.
      expect((await vault.tokenize(testCard(7))).token).not.toBe(token);
    } finally {
      await vault.close();
    }
    const after = await http('GET', `${gw()}/payouts/${payout.id}`, { token: shop.apiKey });
    expect(after.body.payee.cardNumber).toBe(masked(testCard(7)));

    const unknown = await http('DELETE', `${opsUrlOf(gw())}/ops/v1/cards/card_${randomUUID()}`, {
      token: TEST_OPS_TOKEN,
    });
    expect(unknown.status).toBe(404);
    const merchant = await http('DELETE', `${opsUrlOf(gw())}/ops/v1/cards/${token}`, { token: shop.apiKey });
    expect(merchant.status).toBe(401);
  });
});
