import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The card vault tokens of the cards a request carried, kept with its idempotency record, so that
 * erasing a card also removes the SHA-256 of the request body that held its number (decision 259).
 */
export class IdempotencyCardTokens1765400000001 implements MigrationInterface {
  name = 'IdempotencyCardTokens1765400000001';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'gateway';
    await q.query(`ALTER TABLE "${s}".idempotency_keys ADD COLUMN card_tokens text[]`);
    await q.query(
      `CREATE INDEX idempotency_keys_card_tokens ON "${s}".idempotency_keys USING gin (card_tokens)
       WHERE card_tokens IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'gateway';
    await q.query(`DROP INDEX "${s}".idempotency_keys_card_tokens`);
    await q.query(`ALTER TABLE "${s}".idempotency_keys DROP COLUMN card_tokens`);
  }
}
