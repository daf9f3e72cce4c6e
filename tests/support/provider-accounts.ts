import { Client } from 'pg';
import { eventually, http } from '@payments/testing';
import { TEST_OPS_TOKEN, type TestStack } from './stack';

/**
 * Sets a shop's account with Click or Payme as an operator does (decision 341), and waits until
 * callbacks-ingest has it from `shops.settings`: the next call of the provider is checked with it.
 */
export async function setProviderAccount(
  stack: TestStack,
  shopId: string,
  provider: 'click' | 'payme',
  settings: Record<string, string>,
): Promise<void> {
  const res = await http('PUT', `${stack.backoffice!.url}/ops/v1/shops/${shopId}/providers/${provider}`, {
    token: TEST_OPS_TOKEN,
    body: { settings, reason: `The test's ${provider} account` },
  });
  if (res.status !== 200) throw new Error(`${provider} account: ${res.status} ${res.text}`);
  const db = new Client({ connectionString: stack.databaseUrl });
  await db.connect();
  try {
    await eventually(
      async () => {
        const rows = await db
          .query(
            `SELECT accounts->$2->>'updatedAt' AS at FROM callbacks_ingest.shop_provider_accounts WHERE shop_id = $1`,
            [shopId, provider],
          )
          .catch(() => ({ rows: [] as { at: string }[] }));
        return rows.rows[0]?.at === res.body.updatedAt || undefined;
      },
      20000,
      `callbacks-ingest has the ${provider} account of shop ${shopId}`,
    );
  } finally {
    await db.end();
  }
}

/** Deletes a shop's account with Click or Payme as an operator does (decision 341). */
export async function deleteProviderAccount(
  stack: TestStack,
  shopId: string,
  provider: 'click' | 'payme',
): Promise<void> {
  const res = await http('DELETE', `${stack.backoffice!.url}/ops/v1/shops/${shopId}/providers/${provider}`, {
    token: TEST_OPS_TOKEN,
    body: { reason: `The test's ${provider} account is gone` },
  });
  if (res.status !== 204) throw new Error(`${provider} account: ${res.status} ${res.text}`);
}

/**
 * Waits until orders' copy of the shop's settings has these public ids of its account with the
 * provider (null: none), and answers that copy as stored: what the hosted page's view carries
 * (decision 342).
 */
export async function untilOrdersHasIds(
  stack: TestStack,
  shopId: string,
  provider: 'click' | 'payme',
  ids: Record<string, string> | null,
): Promise<string> {
  const db = new Client({ connectionString: stack.databaseUrl });
  await db.connect();
  try {
    return await eventually(
      async () => {
        const rows = await db
          .query(`SELECT settings::text AS text FROM orders.shop_settings WHERE shop_id = $1`, [shopId])
          .catch(() => ({ rows: [] as { text: string }[] }));
        const text = rows.rows[0]?.text;
        if (!text) return undefined;
        const found = (JSON.parse(text) as { providerIds?: Record<string, Record<string, string>> }).providerIds?.[
          provider
        ];
        // jsonb keeps its own order of members: compare them sorted.
        const sorted = (x?: Record<string, string> | null) => (x ? JSON.stringify(Object.entries(x).sort()) : null);
        return sorted(found) === sorted(ids) ? text : undefined;
      },
      20000,
      `orders has the ${provider} ids of shop ${shopId}`,
    );
  } finally {
    await db.end();
  }
}
