import { MigrationInterface, QueryRunner } from 'typeorm';
import { changeCheckValues } from './check-values';

/**
 * P2P fees (decision 312): a completed P2P transaction posts the shop's fee as a `p2p_fee`
 * transaction, one per P2P transaction whatever event tells of it.
 */
export class LedgerP2pFees1765800000312 implements MigrationInterface {
  name = 'LedgerP2pFees1765800000312';

  async up(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    await changeCheckValues(q, s, 'transactions', 'transactions_kind', 'kind', { add: ['p2p_fee'] });
    await q.query(
      `CREATE UNIQUE INDEX transactions_one_p2p_fee ON "${s}".transactions (source_id) WHERE kind = 'p2p_fee'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    const s = q.connection.driver.schema ?? 'ledger';
    await q.query(`DROP INDEX "${s}".transactions_one_p2p_fee`);
    await changeCheckValues(q, s, 'transactions', 'transactions_kind', 'kind', { remove: ['p2p_fee'] });
  }
}
