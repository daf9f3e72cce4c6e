import { TopicReader } from './topic-reader';

/** What the reader did, in order: the contract checks prepared, the consumer's calls. */
const calls: string[] = [];

jest.mock('./asyncapi-messages', () => ({
  prepareTopicChecks: (topics: string[]) => calls.push(`prepare ${topics.join(',')}`),
  checkTopicMessage: () => ({ channel: 'c', message: 'm' }),
  recordChecked: () => undefined,
}));

jest.mock('./infra', () => ({
  eventually: jest.fn(),
  testKafka: () => ({
    consumer: () => {
      const listeners = new Map<string, () => void>();
      return {
        events: { GROUP_JOIN: 'consumer.group_join' },
        on: (event: string, listener: () => void) => listeners.set(event, listener),
        connect: async () => void calls.push('connect'),
        subscribe: async ({ topics }: { topics: string[] }) => void calls.push(`subscribe ${topics.join(',')}`),
        run: async () => {
          calls.push('run');
          listeners.get('consumer.group_join')?.();
        },
        disconnect: async () => void calls.push('disconnect'),
      };
    },
  }),
}));

describe('TopicReader.start: the contract checks are compiled before the reader reads', () => {
  beforeEach(() => calls.splice(0));

  it('when a reader starts, then its topics’ checks are prepared before it connects and subscribes', async () => {
    const reader = await TopicReader.start(['p.orders.events', 'p.payouts.events']);
    expect(calls).toEqual([
      'prepare p.orders.events,p.payouts.events',
      'connect',
      'subscribe p.orders.events,p.payouts.events',
      'run',
    ]);
    await reader.stop();
  });

  it('when a reader starts without the contract check, then nothing is prepared', async () => {
    const reader = await TopicReader.start(['p.test.scratch'], { contract: false });
    expect(calls).toEqual(['connect', 'subscribe p.test.scratch', 'run']);
    await reader.stop();
  });
});
