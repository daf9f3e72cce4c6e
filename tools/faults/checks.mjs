// The fault suite's checks besides the reconciler's counts (reconcile.mjs): the merchant's
// per-shop limit held, and a failpoint's batch (g) really was published again after the restart.

/**
 * At most `perShopLimit` callbacks of the shop were in flight at the merchant at once. Returns
 * what went wrong, or undefined.
 * @param {{ receiver: Awaited<ReturnType<typeof import('./merchant.mjs').startReceiver>>, shopId: string,
 *   faultAt: number | null, perShopLimit: number, log: (...args: any[]) => void }} o
 */
export function merchantLimitCheck({ receiver, shopId, faultAt, perShopLimit, log }) {
  const maxPerShop = Math.max(0, ...receiver.maxInFlight.values());
  const maxAt = receiver.maxAt.get(shopId);
  const off = maxAt && faultAt ? (maxAt - faultAt) / 1000 : undefined;
  const when =
    off === undefined ? '' : `, first ${Math.abs(off).toFixed(1)} s ${off < 0 ? 'before' : 'after'} the fault`;
  log(`  merchant: at most ${maxPerShop} callback(s) of the shop in flight at once${when} (limit ${perShopLimit})`);
  if (maxPerShop > perShopLimit)
    return `the merchant had ${maxPerShop} callbacks of one shop in flight at once; the limit is ${perShopLimit}`;
  return undefined;
}

/**
 * Evidence the fault really happened where it should: the batch the killed relay left on the
 * broker unmarked was published again. Returns what went wrong, or undefined.
 * @param {{ failpoint: string, dbUrl: string, failpointBatch: string[] | undefined, log: (...args: any[]) => void }} o
 */
export async function republishedCheck({ failpoint, dbUrl, failpointBatch, log }) {
  const schema = failpoint.replace(/-/g, '_');
  const republished = failpointBatch?.length ? await countPublished(dbUrl, schema, failpointBatch) : 0;
  log(
    `  the killed relay's batch: ${failpointBatch?.length ?? 0} row(s) on the broker unmarked; ${republished} published again after the restart`,
  );
  if (!failpointBatch?.length || republished !== failpointBatch.length)
    return `the batch left unmarked at the failpoint was not published again (${republished} of ${failpointBatch?.length ?? 0})`;
  return undefined;
}

/**
 * @param {string} dbUrl
 * @param {string} schema
 * @param {string[]} ids
 */
async function countPublished(dbUrl, schema, ids) {
  const { createRequire } = await import('node:module');
  const { Client } = createRequire(import.meta.url)('pg');
  const c = new Client({ connectionString: dbUrl });
  await c.connect();
  try {
    const r = await c.query(
      `SELECT count(*)::int AS n FROM "${schema}".outbox WHERE id = ANY($1::bigint[]) AND published_at IS NOT NULL`,
      [ids],
    );
    return r.rows[0].n;
  } finally {
    await c.end();
  }
}
