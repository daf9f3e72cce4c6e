// Merchant callbacks of payouts and P2P transactions: status changes in sequence with the
// catalogue's description, duplicates sent once, malformed events dead-lettered, own URLs.
import { randomUUID } from 'node:crypto';
import { Producer } from 'kafkajs';
import { envelope, Topics } from '@payments/contracts';
import { statusOf } from '@payments/status-codes';
import { eventually, TopicReader } from '@payments/testing';
import { CallbackReceiver } from '../support/callback-receiver';
import { TestStack } from '../support/stack';
import { merchantCallbacksStack, Shop } from '../support/merchant-callbacks-stack';

describe('merchant callbacks: every status change reaches the merchant, signed, in order, once', () => {
  const { started, ops, aReceiver, aShopCalling, of, acceptedOf, untilAccepted, validSignature } =
    merchantCallbacksStack();
  let stack: TestStack;
  let producer: Producer;
  beforeAll(() => {
    ({ stack, producer } = started());
  });

  describe('payouts and P2P transactions', () => {
    let receiver: CallbackReceiver;
    let shop: Shop;

    beforeAll(async () => {
      receiver = await aReceiver();
      shop = await aShopCalling(receiver.url);
    });

    it('when payout status changes are published on payouts.events, then the merchant receives them in sequence with the catalogue description', async () => {
      const payoutId = randomUUID();
      const payload = (sequence: number, status: string, previousStatus: string | null, statusCode: string) => ({
        payoutId,
        shopId: shop.shopId,
        merchantPayoutId: 'po-1',
        sequence,
        status,
        previousStatus,
        statusCode,
        statusDescription: 'producer text',
        cost: { amount: '25.5', currency: 'USDT', tokenStandard: 'TRC20' },
      });
      await producer.send({
        topic: stack.prefix + Topics.payoutsEvents,
        messages: [payload(1, 'registered', null, '1-01-01'), payload(2, 'completed', 'registered', '0-01-00')].map(
          (p) => ({
            key: payoutId,
            value: JSON.stringify(envelope({ type: 'payout.status_changed', payload: p, occurredAt: new Date() })),
          }),
        ),
      });
      const got = await untilAccepted(receiver, payoutId, 2);
      expect(
        got.map((c) => [c.json.type, c.json.objectType, c.json.sequence, c.json.status, c.json.merchantPayoutId]),
      ).toEqual([
        ['payout.status_changed', 'payout', 1, 'registered', 'po-1'],
        ['payout.status_changed', 'payout', 2, 'completed', 'po-1'],
      ]);
      expect(got[1].json).toMatchObject({
        ...statusOf('0-01-00'),
        cost: { amount: '25.5', currency: 'USDT', tokenStandard: 'TRC20' },
      });
      expect(validSignature(got[1], shop.callbackSecret)).toBe('valid');
    });

    it('when the same event is published twice, then the merchant receives it once; a malformed one is dead-lettered and sends nothing', async () => {
      const payoutId = randomUUID();
      const event = envelope({
        type: 'payout.status_changed',
        payload: {
          payoutId,
          shopId: shop.shopId,
          merchantPayoutId: 'po-dup',
          sequence: 1,
          status: 'registered',
          previousStatus: null,
          cost: { amount: '5.00', currency: 'USD' },
        },
        occurredAt: new Date(),
      });
      const broken = envelope({
        type: 'payout.status_changed',
        payload: { payoutId, shopId: shop.shopId, sequence: 2, status: 'completed' },
        occurredAt: new Date(),
      });
      const reader = await TopicReader.start([stack.prefix + Topics.payoutsEvents + '.dlq']);
      try {
        for (const e of [event, event, broken]) {
          await producer.send({
            topic: stack.prefix + Topics.payoutsEvents,
            messages: [{ key: payoutId, value: JSON.stringify(e) }],
          });
        }
        const [dead] = await reader.waitFor(1, (m) => m.json?.eventId === broken.eventId);
        expect(dead.headers['dlq-error']).toContain('merchantPayoutId');
      } finally {
        await reader.stop();
      }
      await untilAccepted(receiver, payoutId, 1);
      // The merchant's 2xx is recorded right after the exchange: wait for the record, not only the merchant.
      const items = await eventually(
        async () => {
          const list = await ops('GET', `/callbacks?objectId=${payoutId}`);
          return list.body.items.every((d: any) => d.status !== 'pending') ? list.body.items : undefined;
        },
        15000,
        'the delivery recorded',
      );
      expect(items.map((d: any) => [d.eventId, d.status])).toEqual([[event.eventId, 'delivered']]);
      expect(acceptedOf(receiver, payoutId)).toHaveLength(1);
    });

    it('when a P2P status change names its own callback URL, then it goes there', async () => {
      const own = await aReceiver();
      const p2pId = randomUUID();
      await producer.send({
        topic: stack.prefix + Topics.p2pEvents,
        messages: [
          {
            key: p2pId,
            value: JSON.stringify(
              envelope({
                type: 'p2p.status_changed',
                payload: {
                  p2pId,
                  shopId: shop.shopId,
                  merchantP2pId: 'p2p-1',
                  sequence: 1,
                  status: 'failed',
                  previousStatus: 'in_progress',
                  statusCode: '2-07-01',
                  cost: { amount: '10.00', currency: 'USD' },
                  callbackUrl: own.url,
                },
                occurredAt: new Date(),
              }),
            ),
          },
        ],
      });
      const [c] = await untilAccepted(own, p2pId, 1);
      expect(c.json).toMatchObject({
        type: 'p2p.status_changed',
        objectType: 'p2p',
        merchantP2pId: 'p2p-1',
        status: 'failed',
        ...statusOf('2-07-01'),
      });
      expect(of(receiver, p2pId)).toHaveLength(0);
    });
  });
});
