export const deadLetterExample = {
  id: '17',
  topic: 'provider.events.dlq',
  originalTopic: 'provider.events',
  partition: 0,
  offset: '42',
  key: '7d6f1b2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b',
  eventId: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
  type: 'provider.event',
  error: 'provider event for unknown order 7d6f1b2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b',
  consumerGroup: 'orders',
  attempts: 1,
  deadLetteredAt: '2026-11-24T10:15:00.000Z',
  status: 'open',
  redrivable: true,
  resolvedAt: null,
  resolvedBy: null,
  reason: null,
};

export const deadLetterPageExample = { items: [deadLetterExample], nextCursor: '16' };

export const redriveExample = { ids: ['17', '18'], reason: 'The order exists now; apply the event' };

export const redriveResultExample = {
  redriven: ['17'],
  skipped: [{ id: '18', status: 'redriven', why: 'already redriven' }],
};

export const discardExample = { reason: 'A test message from the sandbox; nothing to apply' };

export const discardedExample = {
  ...deadLetterExample,
  status: 'discarded',
  resolvedAt: '2026-11-24T10:20:00.000Z',
  resolvedBy: 'Alice Martin',
  reason: discardExample.reason,
};
