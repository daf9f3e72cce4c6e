// The demo shop's route for `npm start` (docs/providers.md, "Routing"; decisions 320-323): its
// card method `cards` goes to the sandbox acquirer first and fails over to the second one,
// sandbox-b, and a hosted order is printed to watch it happen with a card the first one refuses.

/**
 * Sets the demo shop's route for `cards` through the backoffice, as an operator would.
 * @param {string} opsApi
 * @param {string} opsToken
 * @param {string} shopId
 */
export async function seedDemoRoute(opsApi, opsToken, shopId) {
  const res = await fetch(`${opsApi}/ops/v1/shops/${shopId}/routes/cards`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${opsToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      providers: [{ provider: 'sandbox' }, { provider: 'sandbox-b' }],
      reason: 'npm start: the demo shop fails over from the first card acquirer to the second',
    }),
  });
  if (res.status !== 200) throw new Error(`setting the demo route failed: ${res.status} ${await res.text()}`);
}

/**
 * A hosted order of the demo shop in USD to pay with a card the first acquirer refuses.
 * @param {string} gateway
 * @param {string} apiKey
 * @returns {Promise<{ id: string; link: string }>}
 */
export async function demoFailoverOrder(gateway, apiKey) {
  const order = { merchantOrderId: `demo-failover-${Date.now()}`, cost: { amount: '42.00', currency: 'USD' } };
  const res = await fetch(`${gateway}/order`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ order, paymentPageDesign: { format: 'hosted', locale: 'en' }, timeLimit: 86_400 }),
  });
  const body = await res.json();
  if (res.status !== 201) throw new Error(`creating the demo failover order failed: ${res.status}`);
  return { id: body.id, link: body.data.paymentLink };
}

/**
 * The summary's lines about it.
 * @param {{ id: string; link: string }} order
 * @param {string} gateway
 * @param {string} apiKey
 */
export function demoRoutingSteps(order, gateway, apiKey) {
  return ` 9. Failover between two card acquirers: the demo shop's route for "cards" is sandbox, then
    sandbox-b (GET /ops/v1/shops/<shop>/routes/cards). Open this order and pay with 4501 0000 0000
    0006 (the sandbox declines BIN 4501 00 before taking it: sandbox-b takes over at once) or
    4500 0000 0000 0007 (the sandbox is down for it: sandbox-b after its retries, ~15 s):
   ${order.link}
   then: curl -s ${gateway}/order/${order.id} -H 'Authorization: Bearer ${apiKey}'
    data.payments[] shows both attempts: sandbox failed (2-07-01 or 2-01-01), sandbox-b success.`;
}
