import { Partitioners } from 'kafkajs';
import { testKafka } from '@payments/testing';
import './kafka';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const RequestQueue = require('kafkajs/src/network/requestQueue') as { prototype: { checkPendingRequests(): void } };

/**
 * Against the real broker: a connected producer and admin that are asked nothing keep their
 * request queues asleep. With kafkajs 2.2.4 as released, each connection's queue checked itself
 * about a thousand times a second (tulios/kafkajs#1556), which this counts.
 */
describe('kafkajs connections at rest, against the broker', () => {
  it('when a producer and an admin are connected and idle, then their request queues do not wake', async () => {
    const kafka = testKafka('request-queue-idle');
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    const admin = kafka.admin();
    await producer.connect();
    await admin.connect();
    try {
      await admin.listTopics();
      // Let the answers of the connect and the listing land.
      await new Promise((r) => setTimeout(r, 200));
      const checks = jest.spyOn(RequestQueue.prototype, 'checkPendingRequests');
      await new Promise((r) => setTimeout(r, 1000));
      const idle = checks.mock.calls.length;
      // A request still checks the queue when its answer comes: the spy sees real traffic.
      await admin.listTopics();
      const afterRequest = checks.mock.calls.length;
      checks.mockRestore();
      expect(idle).toBeLessThan(5);
      expect(afterRequest).toBeGreaterThan(idle);
    } finally {
      await admin.disconnect();
      await producer.disconnect();
    }
  });
});
