// The demo shop's Click and Payme accounts for `npm start` (docs/providers.md, "Trying Click and
// Payme locally"): the sandbox plays both apps, so a person pays a hosted order with either on
// this machine. The keys are made for each run and never written or printed: the demo shop's
// accounts are set through the operators' route (decision 341), whence callbacks-ingest learns
// them and checkout shows the buttons (through orders' view, decision 342); the sandbox, which
// plays Click and Payme, gets the keys in its environment.
import { randomBytes } from 'node:crypto';

/** Public ids of the demo accounts (Click's are digits, a Payme merchant id 24 hex digits). */
export const DEMO_CLICK = { serviceId: '90001', merchantId: '90002' };
export const DEMO_PAYME_MERCHANT = 'de30de30de30de30de30de30';

/** The sandbox signs as Click and Payme do; no other service reads a provider account from its environment. */
const KEY_READERS = ['provider-sandbox'];

/** A provider whose sandbox key was given to npm start: its demo account and key are left out. */
const given = (/** @type {string} */ provider) =>
  process.env[provider === 'click' ? 'CLICK_SECRET_KEYS' : 'PAYME_KEYS'] !== undefined;

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
     * Sets the demo shop's Click and Payme accounts as an admin does (PUT /ops/v1/shops/{id}/providers/{provider}).
     * A failure names the provider and the answer, which never carries the key.
     * @param {string} opsApi
     * @param {string} opsToken
     * @param {string} shopId
     */
    async setAccounts(opsApi, opsToken, shopId) {
      const accounts = {
        click: { ...DEMO_CLICK, secretKey: keys.click },
        payme: { merchantId: DEMO_PAYME_MERCHANT, key: keys.payme },
      };
      for (const [provider, settings] of Object.entries(accounts)) {
        if (given(provider)) continue;
        const res = await fetch(`${opsApi}/ops/v1/shops/${shopId}/providers/${provider}`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${opsToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ settings, reason: 'npm start: the demo shop, keys made for this run' }),
        });
        if (res.status !== 200)
          throw new Error(`setting the demo shop's ${provider} account failed: ${res.status} ${await res.text()}`);
      }
    },
    /**
     * What service `name` gets beside the common environment. A Click or Payme key given to npm
     * start is kept as it is, and then that provider's demo key is not added.
     * @param {string} name
     * @returns {Record<string, string>}
     */
    envFor(name) {
      /** @type {Record<string, string>} */
      const env = { ...links };
      if (KEY_READERS.includes(name)) {
        env.CLICK_SECRET_KEYS = JSON.stringify({ [DEMO_CLICK.serviceId]: keys.click });
        env.PAYME_KEYS = JSON.stringify({ [DEMO_PAYME_MERCHANT]: keys.payme });
      }
      // A given key is the caller's: the demo account (set above with the demo key) is not set then.
      if (given('click')) delete env.CLICK_SECRET_KEYS;
      if (given('payme')) delete env.PAYME_KEYS;
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
