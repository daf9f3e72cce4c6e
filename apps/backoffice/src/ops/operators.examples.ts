export const createOperatorExample = { name: 'Alice Martin', role: 'operator' };

export const operatorExample = {
  id: '0b7e4f52-6a1d-4c3e-9f80-2d5a7c9e1b34',
  name: 'Alice Martin',
  role: 'operator',
  tokenPrefix: 'op_Zk3q',
  status: 'active',
  createdAt: '2026-11-24T09:00:00.000Z',
  createdBy: 'OPS_TOKEN',
  disabledAt: null,
};

export const createdOperatorExample = { ...operatorExample, token: 'op_Zk3qL0a9xV2mT7cR5nB8wE1yU4iO6pA3sD0fG9hJ2kQ' };

export const operatorListExample = { items: [operatorExample] };

export const disableOperatorExample = { reason: 'Left the team' };

export const disabledOperatorExample = {
  ...operatorExample,
  status: 'disabled',
  disabledAt: '2026-11-24T17:30:00.000Z',
};

export const meExample = { id: '0b7e4f52-6a1d-4c3e-9f80-2d5a7c9e1b34', name: 'Alice Martin', role: 'operator' };

export const auditPageExample = {
  items: [
    {
      id: '42',
      at: '2026-11-24T10:15:02.120Z',
      operator: { id: '0b7e4f52-6a1d-4c3e-9f80-2d5a7c9e1b34', name: 'Alice Martin', role: 'operator' },
      action: 'order.resolve',
      object: { type: 'order', id: '7d6f1b2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b' },
      before: { id: '7d6f1b2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b', status: 'need_action' },
      after: { id: '7d6f1b2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b', status: 'completed' },
      reason: 'Confirmed with the acquirer',
      request: 'POST /ops/v1/orders/7d6f1b2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b/resolve',
    },
  ],
  nextCursor: '41',
};
