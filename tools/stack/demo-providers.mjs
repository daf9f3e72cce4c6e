// The demo shop's Click and Payme accounts for `npm start` (docs/providers.md, "Trying Click and
// Payme locally"): the sandbox plays both apps, so a person pays a hosted order with either on
// this machine. The keys are made for each run, handed only to the services that use them
// (callbacks-ingest checks them, the sandbox signs with them; decision 294), never written or printed.
import { randomBytes } from 'node:crypto';

/** Public ids of the demo accounts (Click's are digits, a Payme merchant id 24 hex digits). */
export const DEMO_CLICK = { serviceId: '90001', merchantId: '90002' };
export const DEMO_PAYME_MERCHANT = 'de30de30de30de30de30de30';

/** The services that read a key, and those that read which shop takes which provider. */
const KEY_READERS = ['callbacks-ingest', 'provider-sandbox'];
const SHOP_READERS = ['callbacks-ingest', 'checkout'];
/** They read the demo shop's accounts at boot, so npm start starts them once the shop exists. */
export const PROVIDER_SHOP_READERS = SHOP_READERS;

/**
 * The demo providers of one run.
 * @param {string} sandboxUrl where the sandbox listens (its Click and Payme pages)
 */
export function demoProviders(sandboxUrl) {
  const keys = { click: randomBytes(24).toString('base64url'), payme: randomBytes(24).toString('base64url') };
  /** @type {Record<string, string>} */
  const links = {
    // Checkout's buttons go to the sandbox's simulators, not to my.click.uz or checkout.paycom.uz.
    CLICK_PAY_URL: process.env.CLICK_PAY_URL ?? sandboxUrl,
    PAYME_CHECKOUT_URL: process.env.PAYME_CHECKOUT_URL ?? `${sandboxUrl}/payme/checkout`,
  };
  return {
    /**
     * What service `name` gets beside the common environment; `shopId` once the demo shop exists.
     * A Click or Payme configuration given to npm start is kept as it is, and then none of that
     * provider's demo settings is added.
     * @param {string} name
     * @param {string} [shopId]
     * @returns {Record<string, string>}
     */
    envFor(name, shopId) {
      /** @type {Record<string, string>} */
      const env = { ...links };
      if (KEY_READERS.includes(name)) {
        env.CLICK_SECRET_KEYS = JSON.stringify({ [DEMO_CLICK.serviceId]: keys.click });
        env.PAYME_KEYS = JSON.stringify({ [DEMO_PAYME_MERCHANT]: keys.payme });
      }
      if (SHOP_READERS.includes(name) && shopId) {
        env.CLICK_SHOPS = JSON.stringify([{ shopId, ...DEMO_CLICK }]);
        env.PAYME_SHOPS = JSON.stringify([{ shopId, merchantId: DEMO_PAYME_MERCHANT }]);
      }
      // All or nothing per provider: one of its settings given keeps the demo's others out too
      // (demo keys with a given shop list, or the reverse, would not match).
      for (const group of [
        ['CLICK_SECRET_KEYS', 'CLICK_SHOPS'],
        ['PAYME_KEYS', 'PAYME_SHOPS'],
      ])
        if (group.some((k) => process.env[k] !== undefined)) for (const k of group) delete env[k];
      return env;
    },
  };
}

/**
 * Two hosted orders of the demo shop in sums, one to pay with Click and one with Payme: their
 * payment links, printed by npm start. A day to pay each (the longest `timeLimit`).
 * @param {string} gateway
 * @param {string} apiKey
 * @returns {Promise<{ provider: string; amount: string; id: string; link: string }[]>}
 */
export async function demoProviderOrders(gateway, apiKey) {
  const wanted = [
    { provider: 'Click', amount: '150000.00' },
    { provider: 'Payme', amount: '125000.50' },
  ];
  const stamp = Date.now();
  return Promise.all(
    wanted.map(async ({ provider, amount }) => {
      const res = await fetch(`${gateway}/order`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          order: { merchantOrderId: `demo-${provider.toLowerCase()}-${stamp}`, cost: { amount, currency: 'UZS' } },
          paymentPageDesign: { format: 'hosted', locale: 'en' },
          timeLimit: 86_400,
        }),
      });
      const body = await res.json();
      if (res.status !== 201 || !body.data?.paymentLink)
        throw new Error(`creating the demo ${provider} order failed: ${res.status} ${JSON.stringify(body)}`);
      return { provider, amount, id: body.id, link: body.data.paymentLink };
    }),
  );
}

/**
 * The summary's lines about them.
 * @param {{ provider: string; amount: string; id: string; link: string }[]} orders
 * @param {string} gateway
 * @param {string} apiKey
 */
export function demoProviderSteps(orders, gateway, apiKey) {
  const lines = orders.map(
    (o) => `   ${o.provider.padEnd(6)} ${o.amount} UZS  ${o.link}
          then: curl -s ${gateway}/order/${o.id} -H 'Authorization: Bearer ${apiKey}'`,
  );
  return ` 8. Pay with Click or Payme: open one of these hosted orders, press "Pay with Click" (or "Pay
    with Payme"): the sandbox plays the app (its Click and Payme simulators, docs/providers.md),
    calling callbacks-ingest as Click and Payme do. Press "Pay": it says "Paid.", and the order is
    completed (the curl below it); Payme's page then offers "Cancel the payment (refund)". A new
    order for either: step 6's curl, then the same buttons on its page.
${lines.join('\n')}`;
}
