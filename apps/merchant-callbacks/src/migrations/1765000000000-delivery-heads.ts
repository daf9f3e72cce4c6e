import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The claim reads only the head of each object's queue (decision 199): `delivery_heads` holds,
 * per object with a pending delivery, the one that goes next (lowest sequence, then position) and
 * when it is due (while claimed, the end of its lease), indexed by shop and due time. A claim
 * visits the shops with heads (a skip scan) and reads each one's oldest due heads up to its free
 * slots, so its cost follows the shops and the deliveries it takes, not the backlog behind them;
 * `(due_at)` answers the next due time. `deliveries_claimed` holds only the rows in flight, for
 * the per-shop limit. Existing pending deliveries get their heads here (one
 * without a due time, which no claim could take before, is never due: `infinity`).
 */
export class DeliveryHeads1765000000000 implements MigrationInterface {
  name = 'DeliveryHeads1765000000000';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'merchant_callbacks';
    await q.query(`
      CREATE TABLE "${s}".delivery_heads (
        object_type text NOT NULL,
        object_id uuid NOT NULL,
        delivery_id uuid NOT NULL,
        shop_id uuid NOT NULL,
        sequence int NOT NULL,
        position bigint NOT NULL,
        due_at timestamptz NOT NULL,
        version bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (object_type, object_id)
      )`);
    await q.query(`CREATE INDEX delivery_heads_due ON "${s}".delivery_heads (due_at, position)`);
    await q.query(`CREATE INDEX delivery_heads_shop_due ON "${s}".delivery_heads (shop_id, due_at, position)`);
    await q.query(
      `CREATE INDEX deliveries_claimed ON "${s}".deliveries (shop_id) WHERE claim_token IS NOT NULL AND status = 'pending'`,
    );
    await q.query(`
      INSERT INTO "${s}".delivery_heads (object_type, object_id, delivery_id, shop_id, sequence, position, due_at)
      SELECT DISTINCT ON (object_type, object_id) object_type, object_id, id, shop_id, sequence, position,
             COALESCE(next_attempt_at, 'infinity')
        FROM "${s}".deliveries WHERE status = 'pending'
       ORDER BY object_type, object_id, sequence, position`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'merchant_callbacks';
    await q.query(`DROP INDEX "${s}".deliveries_claimed`);
    await q.query(`DROP TABLE "${s}".delivery_heads`);
  }
}
