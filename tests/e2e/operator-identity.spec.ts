import { Client } from 'pg';
import { asOperator, commandTopic, OrderCommandTypes, ResolveOrderCommand } from '@payments/contracts';
import { KafkaRequestClient } from '@payments/messaging';
import { http, testBrokers, uniqueName } from '@payments/testing';
import { aShop, anOrder, TestShop } from '../support/merchant';
import { TEST_OPS_TOKEN, TestStack } from '../support/stack';
import { untilStatus } from '../support/wait';

/**
 * Issue 28 item 2, decision 301: every operator-origin command carries the operator the backoffice
 * authenticated. An order.resolve on orders.ops-commands without a valid operator is refused before
 * its handler and changes nothing; one made in the backoffice by a named operator ends with that
 * operator's id in the backoffice's audit log and on the order (`orders.orders.resolved_by`), and
 * nowhere a merchant reads. Gateway, backoffice, orders, callbacks-ingest and the sandbox.
 */
describe('operator identity on operator-origin commands', () => {
  let stack: TestStack;
  let db: Client;
  let shop: TestShop;
  /** A producer with the backoffice's path (its topic and reply topic) that forgets the operator. */
  let backofficePath: KafkaRequestClient;

  beforeAll(async () => {
    stack = await TestStack.start({ services: ['gateway', 'orders', 'callbacks-ingest', 'provider-sandbox'] });
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    shop = await aShop(stack.gateway!.url, 'Operator Identity Shop');
    backofficePath = new KafkaRequestClient(
      { brokers: testBrokers(), clientId: 'operator-identity-spec', topicPrefix: stack.prefix, replicationFactor: 1 },
      { requester: 'backoffice', instanceId: uniqueName('ops-path') },
      15000,
    );
    await backofficePath.start();
  });

  afterAll(async () => {
    await backofficePath?.stop();
    await db?.end();
    await stack?.stop();
  }, 120_000);

  const gw = () => stack.gateway!.url;
  const ops = (token: string, method: string, path: string, body?: unknown) =>
    http(method, `${stack.backoffice!.url}/ops/v1${path}`, { token, body });
  const read = async (id: string) => (await http('GET', `${gw()}/order/${id}`, { token: shop.apiKey })).body;
  const row = async (id: string) =>
    (await db.query('SELECT status, sequence, resolved_by FROM orders.orders WHERE id = $1', [id])).rows[0];

  /** An order the provider paid in another currency (.22): only an operator resolves it. */
  async function waitingOrder(): Promise<string> {
    const { id } = await anOrder(gw(), shop, { amount: '50.22' });
    await untilStatus(() => read(id), 'need_action', `order ${id} need_action`);
    return id;
  }

  it('when an order.resolve comes through the operators path without a valid operator, then it is refused forbidden and the order is unchanged', async () => {
    const id = await waitingOrder();
    const before = await row(id);
    const send = (payload: unknown) =>
      backofficePath.request(commandTopic('orders', 'operator'), id, OrderCommandTypes.resolve, payload);
    const command = { orderId: id, action: 'fail' };
    const refusals = [
      await send(command),
      await send({ ...command, operator: { id: 'ops-token', role: 'admin' } }),
      await send({ ...command, operator: { id: 'anyone', name: 'Mallory', role: 'admin' } }),
    ];
    for (const reply of refusals)
      expect(reply).toEqual({
        ok: false,
        error: {
          code: 'forbidden',
          detail: expect.stringContaining('order.resolve is not allowed without its operator'),
        },
      });
    expect(await row(id)).toEqual({ ...before, resolved_by: null });
    expect(before).toMatchObject({ status: 'need_action', resolved_by: null });
    expect((await read(id)).status).toBe('need_action');
  });

  it('when a named operator resolves an order in the backoffice, then the audit log and the order both name that operator, and the merchant sees neither', async () => {
    const created = await ops(TEST_OPS_TOKEN, 'POST', '/operators', { name: 'Rita Resolver', role: 'operator' });
    expect(created.status).toBe(201);
    const rita = { id: created.body.id as string, name: 'Rita Resolver', role: 'operator' };
    const id = await waitingOrder();

    const resolved = await ops(created.body.token, 'POST', `/orders/${id}/resolve`, {
      action: 'fail',
      note: 'Paid in EUR; refunded by the provider',
    });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ id, status: 'failed' });

    const audit = await ops(TEST_OPS_TOKEN, 'GET', `/audit?action=order.resolve&objectId=${id}`);
    expect(audit.body.items).toEqual([
      expect.objectContaining({ operator: rita, action: 'order.resolve', object: { type: 'order', id } }),
    ]);
    expect(await row(id)).toMatchObject({ status: 'failed', resolved_by: rita });

    // The merchant's view of the order and the operator's answer carry no operator.
    const merchantView = JSON.stringify(await read(id));
    expect(merchantView).not.toContain(rita.id);
    expect(merchantView).not.toContain(rita.name);
    expect(JSON.stringify(resolved.body)).not.toContain(rita.id);

    // The same command again, now with its operator, is answered by the handler: 409, it is failed.
    const again = await backofficePath.request(
      commandTopic('orders', 'operator'),
      id,
      OrderCommandTypes.resolve,
      asOperator(rita as ResolveOrderCommand['operator'], { orderId: id, action: 'fail' }),
    );
    expect(again).toMatchObject({ ok: false, error: { code: 'conflict' } });
  });
});
