import { Client } from 'pg';
import type { RunningCallbacksIngest } from '@payments/apps/callbacks-ingest';
import type { RunningSandbox } from '@payments/apps/provider-sandbox';
import { checkAnswer, eventually, http, registerOpenApi, unregisterOpenApi } from '@payments/testing';
import { startClick } from '../support/click';
import { aShop, anOrderRequest, TestShop } from '../support/merchant';
import { setProviderAccount } from '../support/provider-accounts';
import { openApiOf, TEST_OPS_TOKEN, TestStack } from '../support/stack';
import { untilStatus } from '../support/wait';

const SERVICE = '70001';
const MERCHANT = '30001';
const KEY = 'click-test-secret-key';

/**
 * Click's SHOP-API (issue 30) against the real services, broker and database: the sandbox plays
 * Click (its simulator, libs/providers/click) and posts signed Prepare and Complete forms to a
 * callbacks-ingest that serves Click for one shop; callbacks-ingest asks orders over Kafka and
 * answers. Every error code -1…-9 is reached by the request that should produce it.
 */
describe('Click: Prepare and Complete answered as its SHOP-API documents', () => {
  let stack: TestStack;
  let db: Client;
  let shop: TestShop;
  let other: TestShop;
  let ingest: RunningCallbacksIngest;
  let click: RunningSandbox;

  beforeAll(async () => {
    stack = await TestStack.start({
      services: ['gateway', 'orders', 'callbacks-ingest', 'provider-sandbox', 'methods'],
    });
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    shop = await aShop(stack.gateway!.url, 'Click Shop');
    other = await aShop(stack.gateway!.url, 'Another Shop');
    // Click accounts are configuration read at boot: this callbacks-ingest knows the shop just made.
    ({ ingest, click } = await startClick(stack, {
      shopId: shop.shopId,
      serviceId: SERVICE,
      merchantId: MERCHANT,
      secretKey: KEY,
    }));
    // Every Click answer below, the sandbox's included, is held to callbacks-ingest's OpenAPI document.
    registerOpenApi('callbacks-ingest', ingest.url, await openApiOf(ingest.url));
  });

  afterAll(async () => {
    if (ingest) unregisterOpenApi(ingest.url);
    await click?.close();
    await ingest?.close();
    await db?.end();
    await stack?.stop();
  });

  const gw = () => stack.gateway!.url;

  async function anOrder(s: TestShop = shop, amount = '150000.00', hosted = true): Promise<string> {
    const res = await http('POST', `${gw()}/order`, {
      token: s.apiKey,
      body: {
        ...anOrderRequest({ amount, currency: 'UZS' }),
        ...(hosted ? { paymentPageDesign: { format: 'hosted' } } : {}),
      },
    });
    expect(res.status).toBe(201);
    return res.body.id;
  }

  const order = async (id: string, s: TestShop = shop) =>
    (await http('GET', `${gw()}/order/${id}`, { token: s.apiKey })).body;

  async function play(name: string, orderId: string, amount = '150000'): Promise<any[]> {
    const res = await fetch(`${click.url}/click/scenarios/${name}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ orderId, amount, serviceId: SERVICE }),
    });
    expect(res.status).toBe(200);
    const { steps } = (await res.json()) as { steps: { endpoint: string; httpStatus: number; answer: any }[] };
    for (const s of steps) {
      expect(s.httpStatus).toBe(200);
      checkAnswer('POST', `${ingest.url}/callbacks/click/${s.endpoint}`, s.httpStatus, 'application/json', s.answer);
    }
    return steps.map((s) => s.answer);
  }

  const transactionsOf = async (orderId: string) =>
    (
      await db.query(
        `SELECT click_trans_id::text, state, merchant_prepare_id::text FROM callbacks_ingest.click_transactions WHERE order_id = $1 ORDER BY created_at`,
        [orderId],
      )
    ).rows;
  const clickCallbacksOf = async (orderId: string) =>
    (
      await db.query(
        `SELECT id FROM callbacks_ingest.provider_callbacks WHERE provider_code = 'click' AND reference = $1`,
        [orderId],
      )
    ).rows;

  it('when Click prepares and completes a hosted order, then both are answered 0 and the order is completed with a click payment', async () => {
    const id = await anOrder();
    const [prepared, completed] = await play('pay', id);
    expect(prepared).toEqual({
      click_trans_id: expect.any(Number),
      merchant_trans_id: id,
      merchant_prepare_id: expect.any(Number),
      error: 0,
      error_note: 'Success',
    });
    expect(completed).toEqual({
      click_trans_id: prepared.click_trans_id,
      merchant_trans_id: id,
      merchant_confirm_id: prepared.merchant_prepare_id,
      error: 0,
      error_note: 'Success',
    });
    const done = await untilStatus(() => order(id), 'completed', 'order paid by Click');
    expect(done.data.payments).toEqual([
      expect.objectContaining({ provider: 'click', paymentId: `click_${prepared.click_trans_id}`, status: 'success' }),
    ]);

    // Then a new Click transaction for the paid order: -4 Already paid, nothing recorded.
    const [again] = await play('already_paid', id);
    expect(again).toMatchObject({ error: -4, error_note: 'Already paid', merchant_prepare_id: null });
    expect(await transactionsOf(id)).toHaveLength(1);
  });

  it('when Click repeats Prepare and Complete, then each is answered as the first time and the order is paid once', async () => {
    const id = await anOrder();
    const [p1, p2, c1, c2] = await play('pay_repeated', id);
    expect(p2).toEqual(p1);
    expect(c2).toEqual(c1);
    expect(c1).toMatchObject({ error: 0, merchant_confirm_id: p1.merchant_prepare_id });
    await untilStatus(() => order(id), 'completed', 'order paid by Click');
    expect(await transactionsOf(id)).toEqual([expect.objectContaining({ state: 'completed' })]);
    expect(await clickCallbacksOf(id)).toHaveLength(1);
    expect((await order(id)).data.payments).toHaveLength(1);
  });

  it.each([
    ['forged_sign', -1, 'SIGN CHECK FAILED!'],
    ['wrong_amount', -2, 'Incorrect parameter amount'],
    ['unknown_action', -3, 'Action not found'],
    ['unknown_transaction', -6, 'Transaction does not exist'],
    ['malformed', -8, 'Error in request from click'],
  ])(
    'when Click sends %s, then the answer is %i and the order and our records are untouched',
    async (name, error, note) => {
      const id = await anOrder();
      const answers = await play(name, id);
      expect(answers[answers.length - 1]).toMatchObject({ error, error_note: note });
      expect(await transactionsOf(id)).toEqual([]);
      expect((await order(id)).status).toBe('registered');
    },
  );

  it('when Click names an order that does not exist, or one of another shop, then -5 User does not exist', async () => {
    const [unknown] = await play('unknown_order', await anOrder());
    expect(unknown).toMatchObject({ error: -5, error_note: 'User does not exist' });
    const foreign = await anOrder(other);
    const [answer] = await play('pay', foreign);
    expect(answer).toMatchObject({ error: -5 });
    expect(await transactionsOf(foreign)).toEqual([]);
  });

  it('when the order is being paid by card, then -7 and nothing changes', async () => {
    // .99: the sandbox acquirer takes the card payment and never calls back: in_progress for good.
    const id = await anOrder(shop, '150000.99', false);
    await untilStatus(() => order(id), 'in_progress', 'card payment under way');
    const [answer] = await play('order_busy', id, '150000.99');
    expect(answer).toMatchObject({ error: -7, error_note: 'Failed to update user' });
    expect(await transactionsOf(id)).toEqual([]);
  });

  it('when Click reports that the payment failed, then -9, the transaction is cancelled, a repeat is -9 again, and the order is still payable', async () => {
    const id = await anOrder();
    const [prepared, failed, repeated] = await play('click_failed', id);
    expect(prepared).toMatchObject({ error: 0 });
    expect(failed).toMatchObject({ error: -9, error_note: 'Transaction cancelled', merchant_confirm_id: null });
    expect(repeated).toEqual(failed);
    expect(await transactionsOf(id)).toEqual([expect.objectContaining({ state: 'cancelled' })]);
    expect((await order(id)).status).toBe('registered');
    // The payer tries again in Click: a new transaction pays the order.
    expect((await play('pay', id))[1]).toMatchObject({ error: 0 });
    await untilStatus(() => order(id), 'completed', 'order paid by Click at the second try');
  });

  it('when the order was cancelled, then Prepare is -9 Transaction cancelled', async () => {
    const id = await anOrder();
    const cancel = await http('POST', `${gw()}/order/cancel`, { token: shop.apiKey, body: { orderId: id } });
    expect(cancel.status).toBe(200);
    const [answer] = await play('order_cancelled', id);
    expect(answer).toMatchObject({ error: -9, error_note: 'Transaction cancelled' });
    expect(await transactionsOf(id)).toEqual([]);
  });

  it('when the order is cancelled between Prepare and Complete, then Complete is -9 and the order stays cancelled', async () => {
    const id = await anOrder();
    const res = await fetch(`${click.url}/click/scenarios/order_cancelled`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ orderId: id, amount: '150000', serviceId: SERVICE }),
    });
    const [{ answer: prepared, form }] = ((await res.json()) as { steps: { answer: any; form: any }[] }).steps;
    expect(prepared).toMatchObject({ error: 0 });
    expect((await http('POST', `${gw()}/order/cancel`, { token: shop.apiKey, body: { orderId: id } })).status).toBe(
      200,
    );
    // Click's Complete of that transaction, signed as Click signs it (the simulator's form builder).
    const { clickForm } = await import('@payments/providers/click');
    const complete = clickForm(
      1,
      {
        clickTransId: form.click_trans_id,
        serviceId: SERVICE,
        orderId: id,
        amount: '150000',
        prepareId: String(prepared.merchant_prepare_id),
      },
      KEY,
      new Date(),
    );
    const answer = (
      await http('POST', `${ingest.url}/callbacks/click/complete`, {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        rawBody: new URLSearchParams(complete).toString(),
      })
    ).body;
    expect(answer).toMatchObject({ error: -9, merchant_confirm_id: null });
    expect(await transactionsOf(id)).toEqual([expect.objectContaining({ state: 'cancelled' })]);
    await eventually(
      async () => ((await order(id)).status === 'cancelled' ? true : undefined),
      5000,
      'still cancelled',
    );
  });
  it("when an operator changes the shop's SECRET_KEY, then the next call is checked with the new key; deleted, Click is refused", async () => {
    const { clickForm } = await import('@payments/providers/click');
    const prepare = async (key: string, clickTransId: string) =>
      (
        await http('POST', `${ingest.url}/callbacks/click/prepare`, {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          rawBody: new URLSearchParams(
            clickForm(0, { clickTransId, serviceId: SERVICE, orderId: id, amount: '150000' }, key, new Date()),
          ).toString(),
        })
      ).body;
    const id = await anOrder();
    const rotated = 'click-rotated-secret-key';
    expect(await prepare(rotated, '990001')).toMatchObject({ error: -1 });
    // The key arrives on shops.settings from the operators' route (decision 341).
    await setProviderAccount(stack, shop.shopId, 'click', {
      serviceId: SERVICE,
      merchantId: MERCHANT,
      secretKey: rotated,
    });
    expect(await prepare(KEY, '990002')).toMatchObject({ error: -1 });
    expect(await prepare(rotated, '990003')).toMatchObject({ error: 0 });
    // callbacks-ingest keeps the key sealed: its table holds neither the new key nor the old one in clear.
    const kept = await db.query(`SELECT accounts::text AS a FROM callbacks_ingest.shop_provider_accounts`);
    expect(kept.rows.map((r) => r.a).join()).toContain('"secretKey": "v1:');
    for (const key of [rotated, KEY]) expect(kept.rows.map((r) => r.a).join()).not.toContain(key);
    const deleted = await http('DELETE', `${stack.backoffice!.url}/ops/v1/shops/${shop.shopId}/providers/click`, {
      token: TEST_OPS_TOKEN,
      body: { reason: 'Contract ended' },
    });
    expect(deleted.status).toBe(204);
    await eventually(
      async () => {
        const r = await db.query(
          `SELECT 1 FROM callbacks_ingest.shop_provider_accounts WHERE shop_id = $1 AND accounts ? 'click'`,
          [shop.shopId],
        );
        return r.rows.length === 0 ? true : undefined;
      },
      20000,
      'callbacks-ingest has the deletion',
    );
    expect(await prepare(rotated, '990004')).toMatchObject({ error: -1 });
    expect(await transactionsOf(id)).toHaveLength(1);
    await setProviderAccount(stack, shop.shopId, 'click', { serviceId: SERVICE, merchantId: MERCHANT, secretKey: KEY });
  });
});
