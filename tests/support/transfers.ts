import { http } from '@payments/testing';
import type { TestShop } from './merchant';
import { opsUrlOf, TEST_OPS_TOKEN } from './stack';
import { untilStatus } from './wait';

/** A TRON address (base58, 34 characters starting with T), as the crypto payout method asks. */
export const TRON_ADDRESS = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf';

/**
 * The shop's payout methods, set up through the operator API as technical support would:
 * Uzcard cards in USD (at most 5000.00) and UZS, USDT on TRON, and personal e-wallets in USD.
 */
export async function withPayoutMethods(gatewayUrl: string, shopId: string): Promise<void> {
  const methods = [
    {
      code: 'uzcard-payout',
      instrumentType: 'card',
      cardBrands: ['uzcard'],
      currencies: [{ currency: 'USD', maxAmount: '5000.00' }, { currency: 'UZS' }],
      provider: 'sandbox',
    },
    {
      code: 'usdt-payout',
      instrumentType: 'crypto',
      currencies: [{ currency: 'USDT', tokenStandard: 'TRC20' }],
      provider: 'sandbox',
    },
    {
      code: 'wallet-payout',
      instrumentType: 'wallet',
      walletTypes: ['personal'],
      currencies: [{ currency: 'USD' }],
      provider: 'sandbox',
    },
  ];
  for (const body of methods) {
    const res = await http('POST', `${opsUrlOf(gatewayUrl)}/ops/v1/shops/${shopId}/payout-methods`, {
      token: TEST_OPS_TOKEN,
      body,
    });
    if (res.status !== 201) throw new Error(`payout method ${body.code}: ${res.status} ${res.text}`);
  }
}

let counter = 0;
const next = (prefix: string) => `${prefix}-${Date.now()}-${++counter}`;

/** A valid create-payout body; override any part. Amounts ending in .99 are accepted by the sandbox and never answered. */
export function aPayoutRequest(
  over: {
    amount?: string;
    currency?: string;
    tokenStandard?: string;
    method?: string;
    merchantPayoutId?: string;
    payout?: Record<string, unknown>;
    payee?: Record<string, unknown>;
    extra?: Record<string, unknown>;
  } = {},
) {
  return {
    payout: {
      merchantPayoutId: over.merchantPayoutId ?? next('po'),
      method: over.method ?? 'uzcard-payout',
      cost: {
        amount: over.amount ?? '100.99',
        currency: over.currency ?? 'USD',
        ...(over.tokenStandard ? { tokenStandard: over.tokenStandard } : {}),
      },
      description: 'test payout',
      ...(over.payout ?? {}),
    },
    payee: over.payee ?? { cardNumber: '8600123456789012', cardHolder: 'JANE DOE' },
    ...(over.extra ?? {}),
  };
}

/** A valid create-P2P body; override any part. */
export function aP2pRequest(
  over: {
    amount?: string;
    currency?: string;
    tokenStandard?: string;
    merchantP2pId?: string;
    extra?: Record<string, unknown>;
  } = {},
) {
  return {
    p2p: {
      merchantP2pId: over.merchantP2pId ?? next('p2p'),
      cost: {
        amount: over.amount ?? '50.99',
        currency: over.currency ?? 'USD',
        ...(over.tokenStandard ? { tokenStandard: over.tokenStandard } : {}),
      },
      description: 'test transfer',
    },
    sender: { customerId: 'cust-1', name: 'Jane Doe', cardNumber: '4111111111111111' },
    recipient: { name: 'John Roe', phone: '+998901234567', cardNumber: '8600123456789012' },
    ...(over.extra ?? {}),
  };
}

/**
 * A merchant's payout routes as the payout specs call them: `post` and `get` as the shop (by
 * default the spec's own), `create` a payout that must be taken, `until` it has a status.
 */
export function payoutsOf(gw: () => string, defaultShop: () => TestShop) {
  const post = (body: unknown, s: TestShop = defaultShop(), path = '/payouts') =>
    http('POST', `${gw()}${path}`, { token: s.apiKey, body });
  const get = (id: string, s: TestShop = defaultShop()) => http('GET', `${gw()}/payouts/${id}`, { token: s.apiKey });

  async function create(over: Parameters<typeof aPayoutRequest>[0] = {}): Promise<any> {
    const res = await post(aPayoutRequest(over));
    if (res.status !== 201) throw new Error(`payout not created: ${res.status} ${res.text}`);
    return res.body;
  }

  const until = (id: string, status: string, timeoutMs?: number) =>
    untilStatus(async () => (await get(id)).body, status, `payout ${id} ${status}`, timeoutMs);
  return { post, get, create, until };
}
