// The card vault through the running services (docs/security.md): after every flow that takes a
// card no table or topic holds a card number, and the scans that say so do find a planted one.
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { dlqTopic, Topics } from '@payments/contracts';
import {
  eventually,
  findCardNumbers,
  http,
  scanDatabaseForCards,
  scanTopicsForCards,
  testKafka,
} from '@payments/testing';
import { CallbackReceiver } from '../support/callback-receiver';
import { TestShop } from '../support/merchant';
import { opsUrlOf, TEST_OPS_TOKEN, TestStack } from '../support/stack';
import { aP2pRequest, aPayoutRequest } from '../support/transfers';
import * as wait from '../support/wait';
import { cardVaultStack, masked, testCard } from '../support/card-vault-stack';

describe('card vault: card numbers never stored or published in clear', () => {
  const { started, gw, createPayout, payoutUntil } = cardVaultStack();
  let stack: TestStack;
  let shop: TestShop;
  let db: Client;
  let receiver: CallbackReceiver;
  beforeAll(() => {
    ({ stack, shop, db, receiver } = started());
  });

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
});
