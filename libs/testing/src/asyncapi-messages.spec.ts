import { envelope } from '@payments/contracts';
import { checkTopicMessage, TopicMessage } from './asyncapi-messages';

const orderId = 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f';
const shopId = '3f6c1b2a-8d4e-4f1a-9c7b-2e5d8a1f4c90';

function statusChanged(payload: Record<string, unknown> = {}): string {
  return JSON.stringify(
    envelope({
      type: 'order.status_changed',
      occurredAt: new Date('2026-11-24T10:15:30Z'),
      payload: {
        orderId,
        shopId,
        merchantOrderId: 'inv-1',
        sequence: 1,
        status: 'registered',
        previousStatus: null,
        cost: { amount: '10.00', currency: 'USD' },
        ...payload,
      },
    }),
  );
}

const onOrdersEvents = (value: string | null, more: Partial<TopicMessage> = {}): TopicMessage => ({
  topic: 't-suite1.orders.events',
  key: orderId,
  value,
  headers: {},
  ...more,
});

describe('checkTopicMessage: a message read from a topic is held to docs/asyncapi.yaml', () => {
  it('when an order status change is as documented, on a prefixed topic, then it passes', () => {
    expect(() => checkTopicMessage(onOrdersEvents(statusChanged()))).not.toThrow();
  });

  it.each([
    [
      'a payload member of the wrong type',
      onOrdersEvents(statusChanged({ sequence: '1' })),
      /\/payload\/sequence must be integer/,
    ],
    [
      'an undocumented payload member',
      onOrdersEvents(statusChanged({ secret: 'x' })),
      /must NOT have additional properties "secret"/,
    ],
    [
      'an amount as a number',
      onOrdersEvents(statusChanged({ cost: { amount: 10, currency: 'USD' } })),
      /\/payload\/cost\/amount must be string/,
    ],
    ['a key that is no order id', onOrdersEvents(statusChanged(), { key: 'order-1' }), /has a key that does not match/],
    [
      'a type not documented on the topic',
      onOrdersEvents(statusChanged().replace('order.status_changed', 'order.deleted')),
      /type "order.deleted" on t-suite1.orders.events/,
    ],
    ['a value that is not JSON', onOrdersEvents('not json'), /does not document there/],
  ])('when a message has %s, then the check throws naming it', (_what, message, reason) => {
    expect(() => checkTopicMessage(message)).toThrow(reason);
  });

  it('when a message is on a topic the document does not list, then the check throws naming the topic', () => {
    expect(() => checkTopicMessage({ ...onOrdersEvents(statusChanged()), topic: 't-suite1.orders.audit' })).toThrow(
      /t-suite1.orders.audit, a topic docs\/asyncapi.yaml does not document/,
    );
  });

  it('when a dead letter carries a broken message with its dlq headers, then it passes; without them, it throws', () => {
    const dead: TopicMessage = {
      topic: 't-suite1.payouts.events.dlq',
      key: orderId,
      value: '{"broken":',
      headers: {
        'dlq-error': 'invalid envelope: value is not JSON',
        'dlq-original-topic': 'payouts.events',
        'dlq-original-partition': '0',
        'dlq-original-offset': '12',
        'dlq-consumer-group': 'merchant-callbacks',
        'dlq-attempts': '0',
        'dlq-at': '2026-11-24T10:15:31.004Z',
      },
    };
    expect(() => checkTopicMessage(dead)).not.toThrow();
    expect(() =>
      checkTopicMessage({ ...dead, headers: { ...dead.headers, 'dlq-original-topic': 'orders.events' } }),
    ).toThrow(/headers that do not match/);
    const { 'dlq-error': _, ...withoutError } = dead.headers;
    expect(() => checkTopicMessage({ ...dead, headers: withoutError })).toThrow(
      /must have required property 'dlq-error'/,
    );
  });
});

describe('prepareTopicChecks: a reader compiles its topics’ checks before it reads', () => {
  it('when a reader prepared its topic, then checking the first message there compiles nothing; on another topic it still compiles', () => {
    jest.isolateModules(() => {
      // A module of its own: the cache of the tests above would hide the compiling.
      /* eslint-disable @typescript-eslint/no-require-imports */
      const isolated = require('./asyncapi-messages') as typeof import('./asyncapi-messages');
      const { default: IsolatedAjv } = require('ajv') as typeof import('ajv');
      /* eslint-enable @typescript-eslint/no-require-imports */
      const compile = jest.spyOn(IsolatedAjv.prototype, 'compile');
      try {
        isolated.prepareTopicChecks(['t-suite1.orders.events']);
        expect(compile).toHaveBeenCalled();
        compile.mockClear();

        expect(isolated.checkTopicMessage(onOrdersEvents(statusChanged()))).toEqual({
          channel: 'ordersEvents',
          message: 'orderStatusChanged',
        });
        expect(compile).not.toHaveBeenCalled();

        expect(() =>
          isolated.checkTopicMessage({ topic: 't-suite1.payouts.commands', key: null, value: '{}', headers: {} }),
        ).toThrow(/\(payoutsCommands\)/);
        expect(compile).toHaveBeenCalled();
      } finally {
        compile.mockRestore();
      }
    });
  });
});
