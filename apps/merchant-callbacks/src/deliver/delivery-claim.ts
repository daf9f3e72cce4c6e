import { param, type Sql, sql } from '@payments/sql';
import type { ShopCallbackSettings } from '../shop-settings/shop-callback-settings.repository';
import type { DeliveryTables, ObjectKey } from './delivery-tables';

/** A delivery as the worker claimed it, with its shop's callback settings at the claim. */
export interface ClaimedDelivery extends ObjectKey {
  id: string;
  eventId: string;
  shopId: string;
  sequence: number;
  body: string;
  urlOverride: string | null;
  attempts: number;
  windowStartedAt: Date;
  shop: ShopCallbackSettings;
}

export interface ClaimRequest {
  now: Date;
  leaseUntil: Date;
  limit: number;
  perShop: number;
  claimToken: string;
  claimedBy: string;
  /** Deliveries whose call ended and whose outcome is being recorded: not in flight (decision 236). */
  settling: readonly { id: string; claimToken: string }[];
}

export interface ClaimRow {
  object_type: string;
  object_id: string;
  id: string | null;
  event_id: string;
  shop_id: string;
  sequence: number;
  body: string;
  url_override: string | null;
  attempts: number;
  window_started_at: Date;
  shop_known: boolean;
  callback_url: string | null;
  callback_secret: string | null;
  previous_callback_secret: string | null;
  previous_callback_secret_expires_at: Date | null;
}

/**
 * The claim's one statement (decisions 199, 236): it visits the shops that have heads (a skip
 * scan of the heads' shop index) and, for each shop with free slots, reads its oldest due heads,
 * as many as it has free slots, skipping heads another claimer holds; of those it takes the
 * oldest `limit`, leases the heads and their deliveries and reads the shops' settings.
 */
export function claimStatement(t: DeliveryTables, r: ClaimRequest): Sql {
  const now = param(r.now);
  const leaseUntil = param(r.leaseUntil);
  return sql`WITH RECURSIVE shops AS (
         SELECT (SELECT h.shop_id FROM ${t.heads} h ORDER BY h.shop_id LIMIT 1) AS shop_id
         UNION ALL
         SELECT (SELECT h.shop_id FROM ${t.heads} h WHERE h.shop_id > s.shop_id ORDER BY h.shop_id LIMIT 1)
           FROM shops s WHERE s.shop_id IS NOT NULL
       ), inflight AS (
         SELECT f.shop_id, count(*)::int AS n FROM ${t.deliveries} f
          WHERE f.claim_token IS NOT NULL AND f.status = 'pending' AND f.next_attempt_at > ${now}
            AND (f.id, f.claim_token) NOT IN (SELECT * FROM unnest(${r.settling.map((d) => d.id)}::uuid[], ${r.settling.map((d) => d.claimToken)}::uuid[]))
          GROUP BY f.shop_id
       ), candidates AS (
         SELECT c.* FROM shops s LEFT JOIN inflight i ON i.shop_id = s.shop_id
          CROSS JOIN LATERAL (
            SELECT h.object_type, h.object_id, h.due_at, h.position FROM ${t.heads} h
             WHERE h.shop_id = s.shop_id AND h.due_at <= ${now}
             ORDER BY h.due_at, h.position
             LIMIT GREATEST(${r.perShop} - COALESCE(i.n, 0), 0)
             FOR UPDATE SKIP LOCKED
          ) c
          WHERE s.shop_id IS NOT NULL
       ), picked AS (
         SELECT c.object_type, c.object_id FROM candidates c ORDER BY c.due_at, c.position LIMIT ${r.limit}
       ), leased AS (
         UPDATE ${t.heads} h SET due_at = ${leaseUntil} FROM picked p
          WHERE h.object_type = p.object_type AND h.object_id = p.object_id
         RETURNING h.object_type, h.object_id, h.delivery_id
       ), claimed AS (
         UPDATE ${t.deliveries} d SET next_attempt_at = ${leaseUntil}, claim_token = ${r.claimToken}, claimed_by = ${r.claimedBy}, updated_at = ${now}
           FROM leased l WHERE d.id = l.delivery_id AND d.status = 'pending' AND d.next_attempt_at <= ${now}
         RETURNING d.id, d.event_id, d.shop_id, d.sequence, d.body, d.url_override, d.attempts, d.window_started_at, d.position
       )
       SELECT l.object_type, l.object_id, c.*, s.shop_id IS NOT NULL AS shop_known, s.callback_url, s.callback_secret,
              s.previous_callback_secret, s.previous_callback_secret_expires_at
         FROM leased l LEFT JOIN claimed c ON c.id = l.delivery_id LEFT JOIN ${t.shops} s ON s.shop_id = c.shop_id
        ORDER BY c.position`;
}

/** The claimed deliveries, and the heads whose delivery could not be claimed (to set again). */
export function claimOutcome(rows: readonly ClaimRow[]): { claimed: ClaimedDelivery[]; stale: ObjectKey[] } {
  const claimed: ClaimedDelivery[] = [];
  const stale: ObjectKey[] = [];
  for (const r of rows) {
    if (r.id === null) {
      stale.push({ objectType: r.object_type, objectId: r.object_id });
      continue;
    }
    claimed.push({
      id: r.id,
      eventId: r.event_id,
      shopId: r.shop_id,
      objectType: r.object_type,
      objectId: r.object_id,
      sequence: Number(r.sequence),
      body: r.body,
      urlOverride: r.url_override,
      attempts: Number(r.attempts),
      windowStartedAt: r.window_started_at,
      shop: r.shop_known
        ? {
            kind: 'known',
            callbackUrl: r.callback_url,
            callbackSecret: r.callback_secret,
            previousCallbackSecret: r.previous_callback_secret,
            previousCallbackSecretExpiresAt: r.previous_callback_secret_expires_at,
          }
        : { kind: 'unknown' },
    });
  }
  return { claimed, stale };
}
