import { EntityManager } from 'typeorm';
import { sql } from '@payments/sql';
import type { DeliveryTables, ObjectKey } from './delivery-tables';

/**
 * Sets the heads of objects from their deliveries (decision 199): locks those that exist, in one
 * order, then moves each to its object's lowest pending delivery, or removes it (none pending).
 * Holding the heads' locks from the first statement, the second one's snapshot sees every
 * delivery committed before them, and a consumer adding one now waits for this transaction and
 * then compares with its result. A head that was not there to lock may be inserted by a consumer
 * meanwhile, with a delivery this snapshot does not see: it is replaced only by an earlier
 * delivery, never a later one.
 */
export async function setHeads(m: EntityManager, t: DeliveryTables, keys: readonly ObjectKey[]): Promise<void> {
  const types = keys.map((k) => k.objectType);
  const ids = keys.map((k) => k.objectId);
  const lock = sql`SELECT h.object_type, h.object_id FROM ${t.heads} h
        WHERE (h.object_type, h.object_id) IN (SELECT * FROM unnest(${types}::text[], ${ids}::uuid[]))
        ORDER BY h.object_type, h.object_id FOR UPDATE`;
  const locked: { object_type: string; object_id: string }[] = await m.query(lock.text, lock.values);
  const move = sql`WITH o AS (
         SELECT DISTINCT * FROM unnest(${types}::text[], ${ids}::uuid[]) AS o(object_type, object_id)
       ), nxt AS (
         SELECT o.object_type, o.object_id, n.id, n.shop_id, n.sequence, n.position, n.next_attempt_at
           FROM o LEFT JOIN LATERAL (
             SELECT d.id, d.shop_id, d.sequence, d.position, d.next_attempt_at FROM ${t.deliveries} d
              WHERE d.object_type = o.object_type AND d.object_id = o.object_id AND d.status = 'pending'
              ORDER BY d.sequence, d.position LIMIT 1
           ) n ON true
       ), gone AS (
         DELETE FROM ${t.heads} h USING nxt
          WHERE nxt.id IS NULL AND h.object_type = nxt.object_type AND h.object_id = nxt.object_id
       )
       INSERT INTO ${t.heads} AS h (object_type, object_id, delivery_id, shop_id, sequence, position, due_at)
       SELECT object_type, object_id, id, shop_id, sequence, position, COALESCE(next_attempt_at, 'infinity')
         FROM nxt WHERE id IS NOT NULL
       ON CONFLICT (object_type, object_id) DO UPDATE
          SET delivery_id = EXCLUDED.delivery_id, shop_id = EXCLUDED.shop_id, sequence = EXCLUDED.sequence,
              position = EXCLUDED.position, due_at = EXCLUDED.due_at, version = h.version + 1
        WHERE (h.object_type, h.object_id) IN (SELECT * FROM unnest(${locked.map((r) => r.object_type)}::text[], ${locked.map((r) => r.object_id)}::uuid[]))
           OR (EXCLUDED.sequence, EXCLUDED.position) < (h.sequence, h.position)`;
  await m.query(move.text, move.values);
}
