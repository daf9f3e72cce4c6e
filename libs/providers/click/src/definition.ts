import type { ProviderDefinition } from '@payments/providers/core';
import { parseClickSettings } from './settings';
import { clickConformanceKit } from './simulator/conformance-kit';

export const CLICK_PROVIDER_CODE = 'click';

/**
 * Click (click.uz) by its SHOP-API: the payer pays in the Click app from our deeplink; Click calls
 * our Prepare and Complete and waits for the answer. We never send it a request, so no client.
 */
export const clickProvider: ProviderDefinition = {
  code: CLICK_PROVIDER_CODE,
  displayName: 'Click',
  capabilities: {
    operations: ['payment'],
    instruments: ['wallet'],
    // Click debits the payer's humo or uzcard card inside its app: brands we never see as card data.
    brands: ['humo', 'uzcard'],
    currencies: ['UZS'],
  },
  inbound: { kind: 'request-answer', paths: ['/callbacks/click/prepare', '/callbacks/click/complete'] },
  // A Complete we accept is a paid order. Click's own failure (error < 0) cancels its transaction
  // and leaves the order payable by other means (decision 293): it reaches the order as nothing.
  statusMap: { complete_ok: 'success' },
  settings: { parse: parseClickSettings, account: { secret: 'secretKey', unique: 'serviceId' } },
  conformance: clickConformanceKit,
};
