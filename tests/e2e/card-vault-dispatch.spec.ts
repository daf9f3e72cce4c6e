import { ProviderAnswer, ProviderClient, ProviderRequest } from '@payments/provider-dispatch';
import { http } from '@payments/testing';
import { Client } from 'pg';
import { aShop, TestShop } from '../support/merchant';
import { opsUrlOf, TEST_OPS_TOKEN, TestStack } from '../support/stack';
import { aP2pRequest, aPayoutRequest, withPayoutMethods } from '../support/transfers';
import * as wait from '../support/wait';

/** A provider adapter that keeps what it was asked and accepts it: the sandbox's code, no network. */
class CapturingProvider implements ProviderClient {
  readonly code = 'sandbox';
  readonly requests: ProviderRequest[] = [];

  start(request: ProviderRequest): Promise<ProviderAnswer> {
    this.requests.push(request);
    return Promise.resolve({ kind: 'accepted' });
  }
}

/**
 * The card numbers reach the provider adapter, from the vault, at the send and only there
 * (decision 114); an erased card is never sent.
 */
describe('card vault: the provider adapter gets the number just before it sends', () => {
  let stack: TestStack;
  let shop: TestShop;
  let db: Client;
  const payoutProvider = new CapturingProvider();
  const p2pProvider = new CapturingProvider();

  beforeAll(async () => {
    stack = await TestStack.start({
      services: ['gateway', 'methods', 'payouts', 'p2p'],
      payouts: { dispatch: { autoStart: false, provider: payoutProvider } },
      p2p: { dispatch: { autoStart: false, provider: p2pProvider } },
    });
    shop = await aShop(stack.gateway!.url);
    await withPayoutMethods(stack.gateway!.url, shop.shopId);
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  const gw = () => stack.gateway!.url;
  const createPayout = async (cardNumber: string) => {
    const res = await http('POST', `${gw()}/payouts`, {
      token: shop.apiKey,
      body: aPayoutRequest({ amount: '12.00', payee: { cardNumber, cardHolder: 'JANE DOE' } }),
    });
    expect(res.status).toBe(201);
    return res.body;
  };
  const payoutStatus = (id: string, status: string) =>
    wait.untilStatus(
      async () => (await http('GET', `${gw()}/payouts/${id}`, { token: shop.apiKey })).body,
      status,
      `payout ${id} ${status}`,
    );

  it('when a card payout and a P2P transaction are dispatched, then the adapter gets the numbers by role, from the vault', async () => {
    const payout = await createPayout('8600314159265356');
    await stack.payouts!.dispatcher.dispatchDue();
    expect(payoutProvider.requests.find((r) => r.reference === payout.id)?.cards).toEqual({
      'payee.cardNumber': '8600314159265356',
    });
    await payoutStatus(payout.id, 'in_progress');

    const p2p = await http('POST', `${gw()}/p2p`, { token: shop.apiKey, body: aP2pRequest({ amount: '7.00' }) });
    expect(p2p.status).toBe(201);
    await stack.p2p!.dispatcher.dispatchDue();
    expect(p2pProvider.requests.find((r) => r.reference === p2p.body.id)?.cards).toEqual({
      sender: '4111111111111111',
      recipient: '8600123456789012',
    });
  });

  it('when the card of a payout not yet sent is erased, then the payout is refused and fails, and the adapter never sees it', async () => {
    const payout = await createPayout('8600271828182844');
    const { rows } = await db.query(`SELECT payee_cards FROM payouts.payouts WHERE id = $1`, [payout.id]);
    const erased = await http('DELETE', `${opsUrlOf(gw())}/ops/v1/cards/${rows[0].payee_cards.cardNumber.token}`, {
      token: TEST_OPS_TOKEN,
    });
    expect(erased.status).toBe(200);

    await stack.payouts!.dispatcher.dispatchDue();
    expect(payoutProvider.requests.some((r) => r.reference === payout.id)).toBe(false);
    const failed = await payoutStatus(payout.id, 'failed');
    expect(failed.payee.cardNumber).toBe('860027******2844');
  });
});
