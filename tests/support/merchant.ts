import { http } from '@payments/testing';
import { opsUrlOf, TEST_OPS_TOKEN } from './stack';

export interface TestShop {
  companyId: string;
  shopId: string;
  apiKey: string;
  callbackSecret: string;
}

/** A company with one shop, created through the operator API as technical support would. */
export async function aShop(gatewayUrl: string, name = 'Test Shop'): Promise<TestShop> {
  const company = await http('POST', `${opsUrlOf(gatewayUrl)}/ops/v1/companies`, {
    token: TEST_OPS_TOKEN,
    body: { name: `${name} Company` },
  });
  if (company.status !== 201) throw new Error(`company: ${company.status} ${company.text}`);
  const shop = await http('POST', `${opsUrlOf(gatewayUrl)}/ops/v1/companies/${company.body.id}/shops`, {
    token: TEST_OPS_TOKEN,
    body: { name },
  });
  if (shop.status !== 201) throw new Error(`shop: ${shop.status} ${shop.text}`);
  return {
    companyId: company.body.id,
    shopId: shop.body.id,
    apiKey: shop.body.apiKey,
    callbackSecret: shop.body.callbackSecret,
  };
}

let counter = 0;
/** A valid create-order body; override any part. */
export function anOrderRequest(
  overrides: { amount?: string; currency?: string; merchantOrderId?: string; extra?: Record<string, unknown> } = {},
) {
  counter += 1;
  return {
    order: {
      merchantOrderId: overrides.merchantOrderId ?? `m-${Date.now()}-${counter}`,
      cost: { amount: overrides.amount ?? '100.00', currency: overrides.currency ?? 'USD' },
      description: 'test order',
    },
    payer: { email: 'payer@example.com', phone: '+998901234567' },
    ...(overrides.extra ?? {}),
  };
}

/** Creates an order of 100.99 (override any part) for `shop`; it must be answered 201. */
export async function anOrder(
  gatewayUrl: string,
  shop: { apiKey: string },
  over: Parameters<typeof anOrderRequest>[0] = {},
  extra: Record<string, unknown> = {},
): Promise<{ id: string; order: { merchantOrderId: string } } & Record<string, any>> {
  const res = await http('POST', `${gatewayUrl}/order`, {
    token: shop.apiKey,
    body: { ...anOrderRequest({ amount: '100.99', ...over }), ...extra },
  });
  expect(res.status).toBe(201);
  return res.body;
}

/**
 * An order with a hosted payment page, and its page on the given checkout (the one started with the
 * shop's provider accounts): `link` is the payment link's path on that checkout.
 */
export async function aHostedOrder(
  gatewayUrl: string,
  checkoutUrl: string,
  shop: TestShop,
  amount: string,
  currency: string,
): Promise<{ id: string; link: string }> {
  const res = await http('POST', `${gatewayUrl}/order`, {
    token: shop.apiKey,
    body: { ...anOrderRequest({ amount, currency }), paymentPageDesign: { format: 'hosted' } },
  });
  expect(res.status).toBe(201);
  const link = new URL(res.body.data.paymentLink);
  return { id: res.body.id, link: `${checkoutUrl}${link.pathname}` };
}
