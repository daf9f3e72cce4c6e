import { ApiKeyView } from '@payments/merchant-admin';
import { orderExample } from '@payments/merchant-admin';

/** Examples of the operator API-key routes in the OpenAPI document. */
const SHOP_ID = orderExample.shopId;

export const apiKeyExample: ApiKeyView = {
  id: '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
  shopId: SHOP_ID,
  prefix: 'sk_Q2hlY2',
  status: 'active',
  createdAt: '2026-11-21T10:00:00.000Z',
  expiresAt: null,
  revokedAt: null,
  lastUsedAt: '2026-11-21T10:05:00.000Z',
};

export const createApiKeyExample = { expiresAt: '2027-11-21T00:00:00Z' };
export const createdApiKeyExample = {
  ...apiKeyExample,
  lastUsedAt: null,
  expiresAt: '2027-11-21T00:00:00.000Z',
  apiKey: 'sk_shown-once-store-it-safely-0000000000000000000',
};
export const apiKeyListExample = { items: [apiKeyExample] };
export const revokedApiKeyExample: ApiKeyView = {
  ...apiKeyExample,
  status: 'revoked',
  revokedAt: '2026-11-21T11:00:00.000Z',
};
export const revokeApiKeyExample = { reason: 'Key leaked in a public repository' };
export const rotateApiKeyExample = { overlapSeconds: 86400 };
export const rotatedApiKeyExample = {
  ...apiKeyExample,
  id: '8b2c3d4e-5f6a-4b7c-9d8e-0f1a2b3c4d5e',
  prefix: 'sk_Um90YX',
  lastUsedAt: null,
  apiKey: 'sk_shown-once-store-it-safely-1111111111111111111',
  previous: { ...apiKeyExample, expiresAt: '2026-11-22T11:00:00.000Z' },
};
