import type { DeliveryStatus } from '@payments/contracts';
import { param, type Sql, sql } from '@payments/sql';
import type { DeliveryTables, ObjectKey } from './delivery-tables';

/**
 * What becomes of a claimed delivery: its new status (`pending` again with its next attempt's
 * time, or final), the error to show, and the HTTP attempt to log when one was made.
 */
export interface DeliveryOutcome extends ObjectKey {
  id: string;
  claimToken: string;
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
  error: string | null;
  attempt: { number: number; at: Date; url: string; responseStatus: number | null; latencyMs: number } | null;
}

/**
 * The outcomes' one statement (decision 200): the deliveries' new state and their attempts in the
 * log, only where the claim is still the worker's, and each object's head moved to its next
 * pending delivery or removed, only if its `version` is still the one this snapshot read. It
 * answers the ids recorded (`id`) and the objects whose head it could not move (`object_type`,
 * `object_id`).
 */
export function outcomesStatement(t: DeliveryTables, outcomes: readonly DeliveryOutcome[], now: Date): Sql {
  const at = param(now);
  const col = <K>(f: (o: DeliveryOutcome) => K) => outcomes.map(f);
  // PostgreSQL text cannot hold NUL: an error text with one would fail the whole batch.
  const errors = col((o) => o.error?.replace(/\u0000/g, '') ?? null);
  return sql`WITH v AS (
           SELECT * FROM unnest(${col((o) => o.id)}::uuid[], ${col((o) => o.claimToken)}::uuid[], ${col((o) => o.status)}::text[],
                                ${col((o) => o.nextAttemptAt)}::timestamptz[],
                                ${errors}::text[],
                                ${col((o) => o.attempt?.number ?? null)}::int[], ${col((o) => o.attempt?.at ?? null)}::timestamptz[],
                                ${col((o) => o.attempt?.url ?? null)}::text[], ${col((o) => o.attempt?.responseStatus ?? null)}::int[],
                                ${col((o) => o.attempt?.latencyMs ?? null)}::int[])
             AS v(id, token, status, next_at, err, attempt, at, url, resp, latency)
         ), done AS (
           UPDATE ${t.deliveries} d
              SET status = v.status, next_attempt_at = v.next_at, claim_token = NULL, updated_at = ${at}, last_error = v.err,
                  attempts = COALESCE(v.attempt, d.attempts), last_url = COALESCE(v.url, d.last_url),
                  last_response_status = CASE WHEN v.attempt IS NULL THEN d.last_response_status ELSE v.resp END,
                  delivered_at = CASE WHEN v.status = 'delivered' THEN ${at} ELSE d.delivered_at END
             FROM v WHERE d.id = v.id AND d.status = 'pending' AND d.claim_token = v.token
           RETURNING d.id, d.object_type, d.object_id, d.shop_id, d.sequence, d.position, d.status, d.next_attempt_at,
                     v.attempt, v.at, v.url, v.resp, v.err, v.latency
         ), logged AS (
           INSERT INTO ${t.attempts} (delivery_id, attempt, at, url, response_status, error, latency_ms)
           SELECT id, attempt, at, url, resp, err, latency FROM done WHERE attempt IS NOT NULL
         ), objects AS (
           SELECT DISTINCT object_type, object_id FROM done
         ), nxt AS (
           -- This statement's snapshot still shows the recorded rows as they were: they count as just written.
           SELECT o.object_type, o.object_id, h.version, n.id, n.shop_id, n.sequence, n.position, n.next_attempt_at
             FROM objects o
             LEFT JOIN ${t.heads} h ON h.object_type = o.object_type AND h.object_id = o.object_id
             LEFT JOIN LATERAL (
               SELECT c.* FROM (
                 SELECT p.id, p.shop_id, p.sequence, p.position, p.next_attempt_at FROM ${t.deliveries} p
                  WHERE p.object_type = o.object_type AND p.object_id = o.object_id AND p.status = 'pending'
                    AND p.id NOT IN (SELECT id FROM done)
                 UNION ALL
                 SELECT x.id, x.shop_id, x.sequence, x.position, x.next_attempt_at FROM done x
                  WHERE x.object_type = o.object_type AND x.object_id = o.object_id AND x.status = 'pending'
               ) c ORDER BY c.sequence, c.position LIMIT 1
             ) n ON true
         ), moved AS (
           UPDATE ${t.heads} h
              SET delivery_id = n.id, shop_id = n.shop_id, sequence = n.sequence, position = n.position,
                  due_at = COALESCE(n.next_attempt_at, 'infinity'), version = h.version + 1
             FROM nxt n
            WHERE n.id IS NOT NULL AND h.object_type = n.object_type AND h.object_id = n.object_id AND h.version = n.version
           RETURNING h.object_type, h.object_id
         ), gone AS (
           DELETE FROM ${t.heads} h USING nxt n
            WHERE n.id IS NULL AND h.object_type = n.object_type AND h.object_id = n.object_id AND h.version = n.version
           RETURNING h.object_type, h.object_id
         )
         SELECT id, NULL AS object_type, NULL AS object_id FROM done
         UNION ALL
         SELECT NULL, n.object_type, n.object_id FROM nxt n
          WHERE NOT EXISTS (SELECT 1 FROM moved m WHERE m.object_type = n.object_type AND m.object_id = n.object_id)
            AND NOT EXISTS (SELECT 1 FROM gone g WHERE g.object_type = n.object_type AND g.object_id = n.object_id)`;
}
