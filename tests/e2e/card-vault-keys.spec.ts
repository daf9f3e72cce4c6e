// The card vault's keys and sealed secrets (docs/security.md): shop secrets sealed at boot,
// callback secret rotation with an overlap, a tampered ciphertext refused, key rotation under load.
import { Client } from 'pg';
import {
  EnvelopeError,
  KeyRing,
  openProviderSecret,
  parseKeyList,
  rotateAll,
  sealProviderSecret,
} from '@payments/card-vault';
import { verifySignature } from '@payments/callback-signature';
import { eventually, http, scanDatabaseForCards } from '@payments/testing';
import { ShopSecretResealer } from '../../apps/gateway/src/shops/shop-secret-resealer.service';
import { ShopSecretResealer as CallbackSecretResealer } from '../../apps/merchant-callbacks/src/shop-settings/shop-secret-resealer.service';
import { CallbackReceiver } from '../support/callback-receiver';
import { aShop, TestShop } from '../support/merchant';
import { opsUrlOf, TEST_OPS_TOKEN, TestStack } from '../support/stack';
import { cardVaultStack, testCard } from '../support/card-vault-stack';

describe('card vault: card numbers never stored or published in clear', () => {
  const { started, oldKey, newKey, vaultWith, preexisting, preexistingTokens, gw, createPayout, payoutUntil } =
    cardVaultStack();
  let stack: TestStack;
  let shop: TestShop;
  let db: Client;
  let receiver: CallbackReceiver;
  beforeAll(() => {
    ({ stack, shop, db, receiver } = started());
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

  it("when a shop's provider secret is sealed under an older key, then the gateway re-seals it at boot and callbacks-ingest gets it (decision 341)", async () => {
    const other = await aShop(gw(), 'Click Legacy Shop');
    const parsed = parseKeyList(oldKey);
    if ('problem' in parsed) throw new Error(parsed.problem);
    const sealedOld = sealProviderSecret(new KeyRing(parsed.keys), other.shopId, 'click', 'click-old-key-000001');
    const account = {
      serviceId: '79001',
      merchantId: '39001',
      secretKey: sealedOld,
      updatedAt: new Date().toISOString(),
    };
    await db.query(`UPDATE gateway.shops SET provider_accounts = $2 WHERE id = $1`, [
      other.shopId,
      JSON.stringify({ click: account }),
    ]);

    await stack.gateway!.app.get(ShopSecretResealer).onApplicationBootstrap();

    const row = await db.query(`SELECT provider_accounts, settings_version FROM gateway.shops WHERE id = $1`, [
      other.shopId,
    ]);
    const resealed: string = row.rows[0].provider_accounts.click.secretKey;
    expect(resealed).toMatch(/^v1:new:/);
    const all = parseKeyList(`${oldKey},${newKey}`);
    if ('problem' in all) throw new Error(all.problem);
    expect(openProviderSecret(new KeyRing(all.keys), other.shopId, 'click', resealed)).toBe('click-old-key-000001');
    const copied = await eventually(
      async () => {
        const r = await db.query(
          `SELECT accounts, version FROM callbacks_ingest.shop_provider_accounts WHERE shop_id = $1`,
          [other.shopId],
        );
        return r.rows[0]?.version === row.rows[0].settings_version ? r.rows[0].accounts : undefined;
      },
      15_000,
      'the re-sealed account in callbacks-ingest',
    );
    expect(copied.click.secretKey).toBe(resealed);
    const clear = (text: string) => (text.includes('click-old-key-000001') ? ['the Click key'] : []);
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
