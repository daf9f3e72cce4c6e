import { Client } from 'pg';
import { http } from '@payments/testing';
import { aShop, anOrderRequest, TestShop } from '../support/merchant';
import { aP2pRequest, aPayoutRequest } from '../support/transfers';
import { TestStack } from '../support/stack';

const CARD = '4111 1111 1111 1111';

/**
 * A card number typed into a free-text field would be stored and answered in clear (only the card
 * fields are masked and, with the vault, tokenized): the gateway refuses it, naming the field.
 */
describe('card numbers in free-text fields', () => {
  let stack: TestStack;
  let shop: TestShop;
  let db: Client;

  beforeAll(async () => {
    stack = await TestStack.start({ services: ['gateway', 'orders'] });
    shop = await aShop(stack.gateway!.url);
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
