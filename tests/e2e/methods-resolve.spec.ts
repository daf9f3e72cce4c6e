// method.payout.resolve over Kafka, the query the payouts service asks: fit, fields by wallet
// type, resends, refusals.
import { Client } from 'pg';
import { randomUUID } from 'node:crypto';
import {
  asOperator,
  commandTopic,
  MethodQueryTypes,
  ResolvedPayoutMethod,
  ResolvePayoutMethodQuery,
  Topics,
} from '@payments/contracts';
import { KafkaRequestClient } from '@payments/messaging';
import { checkPayee } from '@payments/methods-domain';
import { testBrokers, uniqueName } from '@payments/testing';
import { TestShop } from '../support/merchant';
import { TestStack } from '../support/stack';
import { methodsStack } from '../support/methods-stack';

/** Who creates the methods here: every command on an operator path carries its operator (decision 301). */
const OPERATOR = { id: 'ops-token', name: 'OPS_TOKEN', role: 'admin' } as const;

describe('payment and payout methods per shop (spec 2.5, 4)', () => {
  const { started } = methodsStack();
  let stack: TestStack;
  let shop: TestShop;
  let db: Client;
  beforeAll(() => {
    ({ stack, shop, db } = started());
  });

  describe('method.payout.resolve over Kafka (what the payouts service asks)', () => {
    let client: KafkaRequestClient;
    /** Creating a method is an operator's command: it comes from the backoffice, on the operators' topic (decision 263). */
    let operators: KafkaRequestClient;

    beforeAll(async () => {
      const kafka = {
        brokers: testBrokers(),
        clientId: 'methods-spec',
        topicPrefix: stack.prefix,
        replicationFactor: 1,
      };
      client = new KafkaRequestClient(kafka, { requester: 'gateway', instanceId: uniqueName('payouts-client') }, 15000);
      operators = new KafkaRequestClient(
        kafka,
        { requester: 'backoffice', instanceId: uniqueName('ops-client') },
        15000,
      );
      await Promise.all([client.start(), operators.start()]);
    });
    afterAll(async () => Promise.all([client?.stop(), operators?.stop()]));

    const resolve = (q: Omit<ResolvePayoutMethodQuery, 'shopId'>, shopId = shop.shopId) =>
      client.request<ResolvedPayoutMethod>(Topics.methodsQueries, shopId, MethodQueryTypes.payoutResolve, {
        shopId,
        ...q,
      });

    it('when the payout fits the method, then the method and its fields come back, and checkPayee uses them', async () => {
      const reply = await resolve({ method: 'uzcard-payout', currency: 'UZS', amount: '150000.00' });
      expect(reply.ok).toBe(true);
      if (!reply.ok) return;
      expect(reply.result.method).toMatchObject({
        code: 'uzcard-payout',
        instrumentType: 'card',
        cardBrands: ['humo', 'uzcard'],
      });
      expect(checkPayee(reply.result.fields, { cardNumber: '8600123456789012', cardHolder: 'JANE DOE' })).toEqual([]);
      expect(checkPayee(reply.result.fields, { cardNumber: '4111111111111111' })).toEqual([
        { path: 'payee.cardNumber', message: expect.stringMatching(/9860/) },
        { path: 'payee.cardHolder', message: 'is required' },
      ]);
    });

    it('when the wallet type is company, then the fields are the company ones', async () => {
      const reply = await resolve({ method: 'wallet-payout', currency: 'UZS', walletType: 'company', amount: '1' });
      expect(reply.ok && reply.result.fields.map((f) => f.path)).toEqual([
        'payee.walletId',
        'payee.companyName',
        'payee.taxId',
      ]);
    });

    it('when the same create command arrives twice (a resend), then one method exists and both answers are that method', async () => {
      const command = {
        methodId: randomUUID(),
        shopId: shop.shopId,
        direction: 'payout',
        code: 'resent-topup',
        instrumentType: 'mobile_top_up',
        currencies: [{ currency: 'UZS' }],
        provider: 'sandbox',
        enabled: true,
      };
      const first = await operators.request<{ id: string }>(
        commandTopic('methods', 'operator'),
        shop.shopId,
        MethodQueryTypes.create,
        asOperator(OPERATOR, command),
      );
      const second = await operators.request<{ id: string }>(
        commandTopic('methods', 'operator'),
        shop.shopId,
        MethodQueryTypes.create,
        asOperator(OPERATOR, command),
      );
      expect(first).toMatchObject({ ok: true, result: { id: command.methodId } });
      expect(second).toEqual(first);
      const rows = await db.query(
        'SELECT count(*)::int AS n FROM methods.payout_methods WHERE shop_id = $1 AND code = $2',
        [shop.shopId, 'resent-topup'],
      );
      expect(rows.rows[0].n).toBe(1);
    });

    it.each([
      ['a method the shop lacks', 'payout.method', { method: 'nope', currency: 'UZS', amount: '1000' }],
      ['a currency not offered', 'payout.cost.currency', { method: 'uzcard-payout', currency: 'EUR', amount: '1000' }],
      [
        'a wallet type not offered',
        'walletType',
        {
          method: 'usdt-trc20',
          currency: 'USDT',
          tokenStandard: 'TRC20',
          walletType: 'personal' as const,
          amount: '100',
        },
      ],
      [
        'an amount below the minimum',
        'payout.cost.amount',
        { method: 'uzcard-payout', currency: 'UZS', amount: '999.99' },
      ],
      [
        'an amount above the maximum',
        'payout.cost.amount',
        { method: 'uzcard-payout', currency: 'UZS', amount: '5000000.01' },
      ],
      [
        'an amount below the token minimum',
        'payout.cost.amount',
        { method: 'usdt-trc20', currency: 'USDT_TRON', amount: '9.999999' },
      ],
    ])('when the payout has %s, then unprocessable naming %s', async (_what, path, q) => {
      const reply = await resolve(q);
      expect(reply).toMatchObject({ ok: false, error: { code: 'unprocessable', errors: [{ path }] } });
    });
  });
});
