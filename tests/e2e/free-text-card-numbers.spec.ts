import { Client } from 'pg';
import { http } from '@payments/testing';
import { aShop, anOrderRequest, TestShop } from '../support/merchant';
import { aP2pRequest, aPayoutRequest, withPayoutMethods } from '../support/transfers';
import { TestStack } from '../support/stack';

const CARD = '4111 1111 1111 1111';

/**
 * A card number typed into a free-text field would be stored and answered in clear (only the card
 * fields are masked and, with the vault, tokenized): the gateway refuses it, naming the field. One
 * rule for free text and ids (decision 258): an ordinary numeric id is taken.
 */
describe('card numbers in free-text fields', () => {
  let stack: TestStack;
  let shop: TestShop;
  let db: Client;

  beforeAll(async () => {
    stack = await TestStack.start({ services: ['gateway', 'orders', 'methods', 'payouts', 'p2p'] });
    shop = await aShop(stack.gateway!.url);
    await withPayoutMethods(stack.gateway!.url, shop.shopId);
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  const order = anOrderRequest();
  const payout = aPayoutRequest();
  const p2p = aP2pRequest();

  it.each([
    ['/order', 'order.description', { ...order, order: { ...order.order, description: `pay with ${CARD}` } }],
    [
      '/order',
      'order.merchantOrderId',
      { ...order, order: { ...order.order, merchantOrderId: CARD.replace(/ /g, '-') } },
    ],
    ['/order', 'payer.name', { ...order, payer: { name: `Jane ${CARD}` } }],
    ['/order', 'payer.customerId', { ...order, payer: { customerId: CARD.replace(/ /g, '') } }],
    ['/order', 'payer.walletData.walletName', { ...order, payer: { walletData: { walletName: CARD } } }],
    ['/payouts', 'payout.description', { ...payout, payout: { ...payout.payout, description: `to ${CARD}` } }],
    [
      '/payouts',
      'payout.merchantPayoutId',
      { ...payout, payout: { ...payout.payout, merchantPayoutId: CARD.replace(/ /g, '-') } },
    ],
    ['/p2p', 'p2p.description', { ...p2p, p2p: { ...p2p.p2p, description: `from ${CARD}` } }],
    ['/p2p', 'p2p.merchantP2pId', { ...p2p, p2p: { ...p2p.p2p, merchantP2pId: CARD.replace(/ /g, '-') } }],
    ['/p2p', 'sender.name', { ...p2p, sender: { ...p2p.sender, name: CARD } }],
    ['/p2p', 'recipient.customerId', { ...p2p, recipient: { ...p2p.recipient, customerId: CARD } }],
  ])('when POST %s has a card number in %s, then it is a 400 naming the field', async (route, path, body) => {
    const res = await http('POST', `${stack.gateway!.url}${route}`, { token: shop.apiKey, body });
    expect(res.status).toBe(400);
    expect(res.body.errors).toContainEqual({ path, message: 'must not contain a card number' });
    expect(res.text).not.toContain('4111');
  });

  it.each([
    ['/order', 'merchantOrderId'],
    ['/payouts', 'merchantPayoutId'],
    ['/p2p', 'merchantP2pId'],
  ])('when GET %s is asked with a card number as %s, then it is a 400 naming the parameter', async (route, param) => {
    for (const card of [CARD, CARD.replace(/ /g, ''), CARD.replace(/ /g, '-')]) {
      const res = await http('GET', `${stack.gateway!.url}${route}?${param}=${encodeURIComponent(card)}`, {
        token: shop.apiKey,
      });
      expect(res.status).toBe(400);
      expect(res.body.errors).toContainEqual({ path: param, message: 'must not contain a card number' });
      expect(res.text).not.toContain('4111');
    }
  });

  it('when payee.walletId of a payout is a card number, then it is a 400 naming payee.walletId and nothing is stored', async () => {
    for (const card of [CARD.replace(/ /g, ''), CARD.replace(/ /g, '-')]) {
      const body = aPayoutRequest({
        method: 'wallet-payout',
        payee: { walletId: card, firstName: 'Jane', lastName: 'Doe' },
        extra: { instrumentType: 'wallet', walletType: 'personal' },
      });
      const res = await http('POST', `${stack.gateway!.url}/payouts`, { token: shop.apiKey, body });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ path: 'payee.walletId', message: 'must not contain a card number' }]);
      expect(res.text).not.toContain('4111');
      const stored = await db.query('SELECT count(*) FROM payouts.payouts WHERE merchant_payout_id = $1', [
        body.payout.merchantPayoutId,
      ]);
      expect(Number(stored.rows[0].count)).toBe(0);
    }
    // The same payout with a wallet id that is not a card is taken.
    const ok = await http('POST', `${stack.gateway!.url}/payouts`, {
      token: shop.apiKey,
      body: aPayoutRequest({
        method: 'wallet-payout',
        payee: { walletId: '998901234567', firstName: 'Jane', lastName: 'Doe' },
        extra: { instrumentType: 'wallet', walletType: 'personal' },
      }),
    });
    expect(ok.status).toBe(201);
  });

  // Refused by the rule before decision 258 (a Luhn-valid window inside): a yyyyMMddHHmmss id with a
  // sequence, a snowflake on Twitter's epoch and a nanosecond timestamp, all of 27 November 2026.
  const NUMERIC_IDS = ['2026112709512345678', '2126254704030646272', '1795784134851000000'];

  it.each(NUMERIC_IDS)(
    'when %s is the merchant id of an order, a payout and a P2P transaction, then each is taken and found by it',
    async (id) => {
      const gw = stack.gateway!.url;
      const order = anOrderRequest();
      const created = [
        await http('POST', `${gw}/order`, {
          token: shop.apiKey,
          body: { ...order, order: { ...order.order, merchantOrderId: id } },
        }),
        await http('POST', `${gw}/payouts`, { token: shop.apiKey, body: aPayoutRequest({ merchantPayoutId: id }) }),
        await http('POST', `${gw}/p2p`, { token: shop.apiKey, body: aP2pRequest({ merchantP2pId: id }) }),
      ];
      expect(created.map((r) => r.status)).toEqual([201, 201, 201]);
      const found = [
        await http('GET', `${gw}/order?merchantOrderId=${id}`, { token: shop.apiKey }),
        await http('GET', `${gw}/payouts?merchantPayoutId=${id}`, { token: shop.apiKey }),
        await http('GET', `${gw}/p2p?merchantP2pId=${id}`, { token: shop.apiKey }),
      ];
      expect(found.map((r) => r.status)).toEqual([200, 200, 200]);
      expect(found.map((r) => r.body.id)).toEqual(created.map((r) => r.body.id));
    },
  );

  it('when an order description has a number that is not a card, then the order is taken and stored', async () => {
    const description = 'invoice 1764011234567, 4111 1111 1111 1112, call +998901234567';
    const order = anOrderRequest();
    const res = await http('POST', `${stack.gateway!.url}/order`, {
      token: shop.apiKey,
      body: { ...order, order: { ...order.order, description } },
    });
    expect(res.status).toBe(201);
    const stored = await db.query('SELECT count(*) FROM orders.orders WHERE description = $1', [description]);
    expect(Number(stored.rows[0].count)).toBe(1);
  });
});
