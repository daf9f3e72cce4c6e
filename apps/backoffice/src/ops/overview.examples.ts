export const overviewExample = {
  at: '2026-11-24T10:15:00.000Z',
  services: [
    {
      service: 'orders',
      instanceId: 'orders-7d9c5b6f4-2xkqp',
      state: 'ready',
      problems: [],
      repliesDropped: 0,
      reportedAt: '2026-11-24T10:14:57.120Z',
      secondsSinceReport: 3,
    },
    {
      service: 'payouts',
      instanceId: 'payouts-5f8d7c9b6-h4m2n',
      state: 'not_ready',
      problems: [
        {
          component: 'kafka-consumer',
          detail: 'no heartbeat or fetch of group payouts for 21 s',
          since: '2026-11-24T10:14:36.000Z',
        },
      ],
      repliesDropped: 2,
      reportedAt: '2026-11-24T10:14:58.040Z',
      secondsSinceReport: 2,
    },
  ],
  kafkaCollector: 'this_instance',
  consumerGroups: [
    { group: 'orders', lag: 12, lagSeconds: 3.5, last15m: [0, 0, 4, 12] },
    { group: 'merchant-callbacks', lag: 0, lagSeconds: 0, last15m: [0, 0, 0, 0] },
  ],
  deadLetters: [{ topic: 'provider.events.dlq', messages: 2, last15m: [1, 1, 2, 2] }],
  outboxes: [{ schema: 'orders', pending: 3, oldestSeconds: 1, last15m: [0, 5, 3, 3] }],
  merchantCallbacks: { pending: 4, failed: 1, last15m: [2, 3, 4, 4] },
  transitionsPerMinute: [
    { objectType: 'order', status: 'completed', count: 42, last15m: [30, 38, 41, 42] },
    { objectType: 'payout', status: 'completed', count: 7, last15m: [5, 6, 6, 7] },
    { objectType: 'p2p', status: 'need_action', count: 1, last15m: [0, 0, 1, 1] },
  ],
};
