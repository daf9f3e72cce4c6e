// Shared set-up of the card vault e2e specs (card-vault*.spec.ts): a stack with checkout whose
// vault seals under key "new" (cards made before it under "old"), a shop with payout methods, a
// callback receiver, test cards, and payout helpers.
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { CardVault, generateCardVaultKey, readCardVaultConfig } from '@payments/card-vault';
import { EnvReader } from '@payments/platform';
import { http } from '@payments/testing';
import { CallbackReceiver } from './callback-receiver';
import { aShop, TestShop } from './merchant';
import { TestStack } from './stack';
import { aPayoutRequest, withPayoutMethods } from './transfers';
import * as wait from './wait';

/** A Luhn-valid 16-digit test card starting 8600 (Uzcard), different for each n. */
export function testCard(n: number): string {
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

export function masked(pan: string): string {
  return pan.slice(0, 6) + '*'.repeat(pan.length - 10) + pan.slice(-4);
}

/** Registers beforeAll/afterAll in the calling describe and returns its helpers; started() gives
 *  what beforeAll set up, to be read in the caller's own beforeAll. */
export function cardVaultStack() {
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

  return {
    started: () => ({ stack, shop, db, receiver }),
    oldKey,
    newKey,
    fingerprintKey,
    vaultEnv,
    vaultWith,
    preexisting,
    preexistingTokens,
    gw,
    createPayout,
    payoutUntil,
  };
}
