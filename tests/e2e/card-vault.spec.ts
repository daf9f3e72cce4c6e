import { createHash, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { CardVault, EnvelopeError, generateCardVaultKey, readCardVaultConfig, rotateAll } from '@payments/card-vault';
import { verifySignature } from '@payments/callback-signature';
import { dlqTopic, Topics } from '@payments/contracts';
import { EnvReader } from '@payments/platform';
import {
  eventually,
  findCardNumbers,
  http,
  recoverCardNumber,
  scanDatabaseForCards,
  scanTopicsForCards,
  testKafka,
} from '@payments/testing';
import { canonicalJson } from '../../libs/merchant-admin/src/idempotency-request';
import { ShopSecretResealer } from '../../apps/gateway/src/shops/shop-secret-resealer.service';
import { ShopSecretResealer as CallbackSecretResealer } from '../../apps/merchant-callbacks/src/shop-settings/shop-secret-resealer.service';
import { CallbackReceiver } from '../support/callback-receiver';
import { aShop, TestShop } from '../support/merchant';
import { opsUrlOf, TEST_OPS_TOKEN, TestStack } from '../support/stack';
import { aP2pRequest, aPayoutRequest, withPayoutMethods } from '../support/transfers';
import * as wait from '../support/wait';

/** A Luhn-valid 16-digit test card starting 8600 (Uzcard), different for each n. */
function testCard(n: number): string {
  const body = `8600${String(n).padStart(11, '0')}`;
  for (let d = 0; d < 10; d++) {
    const pan = body + d;
    let sum = 0;
    for (let i = 0; i < pan.length; i++) {
      let x = Number(pan[pan.length - 1 - i]);
      if (i % 2 === 1) x = x * 2 > 9 ? x * 2 - 9 : x * 2;
      sum += x;
    }
    if (sum % 10 === 0) return pan;
  }
  throw new Error('unreachable');
}

/**
 * The card vault through the running services (docs/security.md): every flow that takes a card
 * leaves no card number in any table or topic; erasure; a tampered ciphertext; rotation under load.
 */
describe('card vault: card numbers never stored or published in clear', () => {
  let stack: TestStack;
  let shop: TestShop;
  let db: Client;
  let receiver: CallbackReceiver;
  /** The stack seals under "new"; the cards made before it started were sealed under "old". */
  const oldKey = generateCardVaultKey('old');
  const newKey = generateCardVaultKey('new');
  const fingerprintKey = Buffer.from(randomUUID() + randomUUID()).toString('base64');
  const vaultEnv = (keys: string) => ({ CARD_VAULT_KEYS: keys, CARD_VAULT_FINGERPRINT_KEY: fingerprintKey });
  const vaultWith = (keys: string) =>
    new CardVault(stack.databaseUrl, readCardVaultConfig(new EnvReader(vaultEnv(keys))));
  const preexisting = Array.from({ length: 120 }, (_, i) => testCard(500 + i));
  const preexistingTokens = new Map<string, string>();

  beforeAll(async () => {
    stack = await TestStack.start({ checkout: true, extraEnv: vaultEnv(`${oldKey},${newKey}`) });
    shop = await aShop(stack.gateway!.url);
    await withPayoutMethods(stack.gateway!.url, shop.shopId);
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    receiver = await CallbackReceiver.start();
    const old = vaultWith(oldKey);
    for (const pan of preexisting) preexistingTokens.set(pan, (await old.tokenize(pan)).token);
    await old.close();
  });

  afterAll(async () => {
    await receiver?.stop();
    await db?.end();
    await stack?.stop();
  });

  const gw = () => stack.gateway!.url;
  const createPayout = async (over: NonNullable<Parameters<typeof aPayoutRequest>[0]>, key?: string) => {
    const body = aPayoutRequest({ ...over, extra: { callbackUrl: receiver.url, ...over.extra } });
    const res = await http('POST', `${gw()}/payouts`, {
      token: shop.apiKey,
      body,
      headers: key ? { 'idempotency-key': key } : {},
    });
    if (res.status !== 201) throw new Error(`payout not created: ${res.status} ${res.text}`);
    return res.body;
  };
  const payoutUntil = (id: string, status: string) =>
    wait.untilStatus(
      async () => (await http('GET', `${gw()}/payouts/${id}`, { token: shop.apiKey })).body,
      status,
      `payout ${id} ${status}`,
    );

  it('when every flow that takes a card has run, then no column of any table and no message of any topic holds a card number', async () => {
    const key = `idem-${randomUUID()}`;
    const paid = await createPayout(
      { amount: '100.00', payee: { cardNumber: testCard(1), cardHolder: 'JANE DOE' } },
      key,
    );
    expect(paid.payee).toEqual({ cardNumber: masked(testCard(1)), cardHolder: 'JANE DOE' });
    const replay = await http('POST', `${gw()}/payouts`, {
      token: shop.apiKey,
      headers: { 'idempotency-key': key },
      body: aPayoutRequest({
        amount: '100.00',
        payee: { cardNumber: testCard(1), cardHolder: 'JANE DOE' },
        merchantPayoutId: paid.payout.merchantPayoutId,
        extra: { callbackUrl: receiver.url },
      }),
    });
    expect(replay.body.id).toBe(paid.id);
    const declined = await createPayout({
      amount: '100.13',
      payee: { cardNumber: testCard(2), cardHolder: 'JOHN ROE' },
    });
    const mismatch = await createPayout({
      amount: '100.21',
      payee: { cardNumber: testCard(3), cardHolder: 'ANN LEE' },
    });
    const p2pRes = await http('POST', `${gw()}/p2p`, {
      token: shop.apiKey,
      body: aP2pRequest({ amount: '30.00', extra: { callbackUrl: receiver.url } }),
    });
    expect(p2pRes.status).toBe(201);
    expect(p2pRes.body.sender.cardNumber).toBe('411111******1111');
    expect(p2pRes.body.recipient.cardNumber).toBe('860012******9012');
    const p2pDeclined = await http('POST', `${gw()}/p2p`, {
      token: shop.apiKey,
      body: aP2pRequest({ amount: '30.13', extra: { callbackUrl: receiver.url } }),
    });
    expect(p2pDeclined.status).toBe(201);
    // A card typed on a hosted payment page (apps/checkout), posted as the page's form posts it.
    const hosted = await http('POST', `${gw()}/order`, {
      token: shop.apiKey,
      body: {
        order: { merchantOrderId: `hosted-${randomUUID()}`, cost: { amount: '150000.00', currency: 'UZS' } },
        paymentPageDesign: { format: 'hosted' },
        callbackUrl: receiver.url,
      },
    });
    expect(hosted.status).toBe(201);
    const submitted = await fetch(hosted.body.data.paymentLink, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ method: 'card', cardNumber: testCard(4), expiry: '12/39' }).toString(),
      redirect: 'manual',
    });
    expect(submitted.status).toBe(303);
    // A payee card typed on a payout page (payout via payment page), posted as the page's form posts it.
    const setting = await http('PATCH', `${opsUrlOf(gw())}/ops/v1/shops/${shop.shopId}/settings`, {
      token: TEST_OPS_TOKEN,
      body: { payoutViaPaymentPage: true },
    });
    expect(setting.status).toBe(200);
    const linked = await http('POST', `${gw()}/payouts`, {
      token: shop.apiKey,
      body: {
        payout: { merchantPayoutId: `hosted-po-${randomUUID()}`, cost: { amount: '100.00', currency: 'USD' } },
        callbackUrl: receiver.url,
      },
    });
    expect(linked.status).toBe(201);
    const filled = await fetch(linked.body.data.payoutLink, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        method: 'uzcard-payout',
        cardNumber: testCard(5),
        cardHolder: 'JANE DOE',
      }).toString(),
      redirect: 'manual',
    });
    expect(filled.status).toBe(303);
    // A provider callback about nothing of ours: its raw copy is kept and its event dead-lettered.
    await http('POST', `${stack.sandbox!.url}/simulate/callback`, {
      body: { kind: 'payout', reference: randomUUID(), amount: '1.00', currency: 'USD', status: 'success' },
    });

    await wait.untilStatus(
      async () => (await http('GET', `${gw()}/order/${hosted.body.id}`, { token: shop.apiKey })).body,
      'completed',
      'the hosted order paid by card',
    );
    await payoutUntil(paid.id, 'completed');
    await payoutUntil(linked.body.id, 'completed');
    await payoutUntil(declined.id, 'failed');
    await payoutUntil(mismatch.id, 'need_action');
    for (const [id, status] of [
      [p2pRes.body.id, 'completed'],
      [p2pDeclined.body.id, 'failed'],
    ])
      await wait.untilStatus(
        async () => (await http('GET', `${gw()}/p2p/${id}`, { token: shop.apiKey })).body,
        status,
        `P2P ${id} ${status}`,
      );
    await eventually(async () => (receiver.received.length >= 10 ? true : undefined), 20_000, 'merchant callbacks');
    const dlq = `${stack.prefix}${dlqTopic(Topics.providerEvents)}`;
    await eventually(
      async () => ((await scanTopicsForCards(dlq)).messages > 0 ? true : undefined),
      20_000,
      'the dead-lettered provider event',
    );

    expect(await scanDatabaseForCards(stack.databaseUrl)).toEqual([]);
    const topics = await scanTopicsForCards(stack.prefix);
    expect(topics.findings).toEqual([]);
    expect(topics.messages).toBeGreaterThan(20);
    // The shop's callback-signing secret is sealed wherever it is kept or published.
    const secret = (text: string) => (text.includes(shop.callbackSecret) ? ['the callback secret'] : []);
    expect(await scanDatabaseForCards(stack.databaseUrl, secret)).toEqual([]);
    expect((await scanTopicsForCards(stack.prefix, secret)).findings).toEqual([]);
    // And what reached the merchant: every callback body and header.
    expect(receiver.received.flatMap((c) => findCardNumbers(c.raw + JSON.stringify(c.headers)))).toEqual([]);
  });

  it('when a card number is planted in a table and in a .dlq topic, then the scans find both', async () => {
    await db.query(`CREATE TABLE public.planted (note text)`);
    await db.query(`INSERT INTO public.planted VALUES ('{"pan": "4111111111111111"}')`);
    const producer = testKafka('planter').producer();
    await producer.connect();
    const dlq = `${stack.prefix}${dlqTopic(Topics.payoutsCommands)}`;
    await producer.send({
      topic: dlq,
      messages: [{ value: JSON.stringify({ payee: { cardNumber: '5555555555554444' } }) }],
    });
    await producer.disconnect();
    try {
      expect(await scanDatabaseForCards(stack.databaseUrl)).toEqual([
        { where: '"public"."planted"', number: '4111111111111111' },
      ]);
      const found = await eventually(
        async () => {
          const { findings } = await scanTopicsForCards(dlq);
          return findings.length > 0 ? findings : undefined;
        },
        20_000,
        'the planted message',
      );
      expect(found).toEqual([{ where: `${dlq}[0]@0`, number: '5555555555554444' }]);
    } finally {
      await db.query(`DROP TABLE public.planted`);
    }
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

  it('when a shop secret is still in clear (a database from before sealing), then both services seal it at boot and the gateway publishes it sealed', async () => {
    const other = await aShop(gw(), 'Legacy Shop');
    await db.query(`UPDATE gateway.shops SET callback_secret = $2 WHERE id = $1`, [other.shopId, other.callbackSecret]);
    const before = await db.query(`SELECT settings_version FROM gateway.shops WHERE id = $1`, [other.shopId]);
    await eventually(
      async () => {
        const r = await db.query(`SELECT 1 FROM merchant_callbacks.shops WHERE shop_id = $1`, [other.shopId]);
        return r.rows.length === 1 ? true : undefined;
      },
      15_000,
      'the shop in merchant-callbacks',
    );
    await db.query(`UPDATE merchant_callbacks.shops SET callback_secret = $2 WHERE shop_id = $1`, [
      other.shopId,
      other.callbackSecret,
    ]);

    await stack.gateway!.app.get(ShopSecretResealer).onApplicationBootstrap();
    await stack.merchantCallbacks!.app.get(CallbackSecretResealer).onApplicationBootstrap();

    const gateway = await db.query(`SELECT callback_secret, settings_version FROM gateway.shops WHERE id = $1`, [
      other.shopId,
    ]);
    expect(gateway.rows[0].callback_secret).toMatch(/^v1:new:/);
    expect(gateway.rows[0].settings_version).toBe(before.rows[0].settings_version + 1);
    const stored = await eventually(
      async () => {
        const r = await db.query(`SELECT callback_secret, version FROM merchant_callbacks.shops WHERE shop_id = $1`, [
          other.shopId,
        ]);
        return r.rows[0].version === gateway.rows[0].settings_version ? r.rows[0].callback_secret : undefined;
      },
      15_000,
      'the re-sealed settings in merchant-callbacks',
    );
    expect(stored).toMatch(/^v1:new:/);
    const clear = (text: string) => (text.includes(other.callbackSecret) ? ['the callback secret'] : []);
    expect(await scanDatabaseForCards(stack.databaseUrl, clear)).toEqual([]);
  });

  it("when a shop's callback secret is rotated with an overlap, then callbacks carry both signatures until it ends, then only the new one", async () => {
    const rotate = (overlapHours: number) =>
      http('POST', `${opsUrlOf(gw())}/ops/v1/shops/${shop.shopId}/callback-secret/rotate`, {
        token: TEST_OPS_TOKEN,
        body: { overlapHours },
      });
    const settingsArrived = async () => {
      const { rows } = await db.query(`SELECT settings_version FROM gateway.shops WHERE id = $1`, [shop.shopId]);
      await eventually(
        async () => {
          const r = await db.query(`SELECT version FROM merchant_callbacks.shops WHERE shop_id = $1`, [shop.shopId]);
          return r.rows[0]?.version === rows[0].settings_version ? true : undefined;
        },
        15_000,
        'the rotated secret in merchant-callbacks',
      );
    };
    const signatureOfNextCallback = async () => {
      const payout = await createPayout({ amount: '3.99', payee: { cardNumber: testCard(9), cardHolder: 'JANE DOE' } });
      const callback = await eventually(
        async () => receiver.received.find((c) => c.raw.includes(payout.id)),
        15_000,
        `a callback of payout ${payout.id}`,
      );
      return { header: callback.headers['x-signature'] as string, raw: callback.raw };
    };
    const valid = (cb: { header: string; raw: string }, secret: string) =>
      verifySignature(cb.header, cb.raw, secret, Math.floor(Date.now() / 1000)).kind;

    const first = await rotate(24);
    expect(first.status).toBe(200);
    expect(first.body.callbackSecret).not.toBe(shop.callbackSecret);
    expect(Date.parse(first.body.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(23 * 3_600_000);
    await settingsArrived();
    const during = await signatureOfNextCallback();
    expect(during.header.match(/v1=/g)).toHaveLength(2);
    expect(valid(during, first.body.callbackSecret)).toBe('valid');
    expect(valid(during, shop.callbackSecret)).toBe('valid');

    const second = await rotate(0);
    await settingsArrived();
    const after = await signatureOfNextCallback();
    expect(after.header.match(/v1=/g)).toHaveLength(1);
    expect(valid(after, second.body.callbackSecret)).toBe('valid');
    expect(valid(after, first.body.callbackSecret)).toBe('invalid');
    const stored = await db.query(`SELECT callback_secret, previous_callback_secret FROM gateway.shops WHERE id = $1`, [
      shop.shopId,
    ]);
    expect(stored.rows[0].callback_secret).toMatch(/^v1:/);
    expect(stored.rows[0].previous_callback_secret).toMatch(/^v1:/);
    // The audit records have non-secret facts before (settings version, overlap end) and never a secret.
    const audit = await http(
      'GET',
      `${opsUrlOf(gw())}/ops/v1/audit?action=shop.callback-secret.rotate&objectId=${shop.shopId}`,
      { token: TEST_OPS_TOKEN },
    );
    const [last, previous] = audit.body.items;
    expect(previous.before).toMatchObject({ shopId: shop.shopId, settingsVersion: expect.any(Number) });
    expect(last.before).toEqual({
      shopId: shop.shopId,
      settingsVersion: previous.before.settingsVersion + 1,
      previousSecretExpiresAt: first.body.previousSecretExpiresAt,
    });
    expect(last.after).toMatchObject({
      callbackSecret: '[redacted]',
      previousSecretExpiresAt: second.body.previousSecretExpiresAt,
    });
    for (const secret of [shop.callbackSecret, first.body.callbackSecret, second.body.callbackSecret])
      expect(JSON.stringify(audit.body)).not.toContain(secret);
    shop.callbackSecret = second.body.callbackSecret;
  });

  it('when a stored ciphertext is altered, then the vault refuses it instead of decrypting it', async () => {
    const vault = vaultWith(`${oldKey},${newKey}`);
    try {
      const { token } = await vault.tokenize(testCard(8));
      const { rows } = await db.query(`SELECT ciphertext FROM card_vault.cards WHERE token = $1`, [token]);
      const parts: string[] = rows[0].ciphertext.split(':');
      const bytes = Buffer.from(parts[3], 'base64url');
      bytes[bytes.length - 1] ^= 0x01;
      parts[3] = bytes.toString('base64url');
      await db.query(`UPDATE card_vault.cards SET ciphertext = $2 WHERE token = $1`, [token, parts.join(':')]);
      await expect(vault.detokenize(token)).rejects.toThrow(EnvelopeError);
      await expect(vault.detokenize(token)).rejects.toThrow(/failed authentication/);
    } finally {
      await vault.close();
    }
  });

  it('when the vault is rotated while payouts are created and sent, then every card still detokenizes under the new key alone and no payout is doubled', async () => {
    const before = await db.query(`SELECT count(*)::int AS n FROM card_vault.cards WHERE key_id = 'old'`);
    expect(before.rows[0].n).toBeGreaterThanOrEqual(preexisting.length);
    const rotating = vaultWith(`${oldKey},${newKey}`);
    const load = (async () => {
      const created: string[] = [];
      for (let i = 0; i < 24; i += 4)
        created.push(
          ...(
            await Promise.all(
              preexisting
                .slice(i, i + 4)
                .map((pan) => createPayout({ amount: '5.00', payee: { cardNumber: pan, cardHolder: 'LOAD TEST' } })),
            )
          ).map((p) => p.id),
        );
      return created;
    })();
    const [ids, rotation] = await Promise.all([load, rotateAll(rotating, { batchSize: 7, pauseMs: 20 })]);
    await rotating.close();
    expect(rotation.rotated).toBeGreaterThanOrEqual(preexisting.length - 24);

    const newOnly = vaultWith(newKey);
    try {
      expect(Object.keys(await newOnly.countByKey())).toEqual(['new']);
      for (const [pan, token] of preexistingTokens) expect(await newOnly.detokenize(token)).toBe(pan);
    } finally {
      await newOnly.close();
    }
    for (const id of ids) await payoutUntil(id, 'completed');
    const dispatches = await db.query(
      `SELECT payout_id, count(*)::int AS n FROM payouts.provider_dispatches WHERE payout_id = ANY($1) GROUP BY payout_id`,
      [ids],
    );
    expect(dispatches.rows).toHaveLength(ids.length);
    expect(dispatches.rows.every((r) => r.n === 1)).toBe(true);
    const tokens = await db.query(
      `SELECT payee_cards->'cardNumber'->>'token' AS token FROM payouts.payouts WHERE id = ANY($1)`,
      [ids],
    );
    expect(tokens.rows.map((r) => r.token).sort()).toEqual(
      preexisting
        .slice(0, 24)
        .map((pan) => preexistingTokens.get(pan))
        .sort(),
    );
  });
});

function masked(pan: string): string {
  return pan.slice(0, 6) + '*'.repeat(pan.length - 10) + pan.slice(-4);
}
