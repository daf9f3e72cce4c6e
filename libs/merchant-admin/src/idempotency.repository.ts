import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { MERCHANT_ADMIN_CONFIG, MerchantAdminConfig } from './merchant-admin.config';
import { CARD_VAULT_SCHEMA } from '@payments/card-vault';
import { Fingerprint } from './idempotency-request';

/**
 * What a record's body hash becomes when a card its request carried is erased (decision 259): the
 * SHA-256 of a body holding a card number is a test for guessed numbers. Never a hex digest.
 */
export const CARD_ERASED = 'card-erased';

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type IdempotencyRecord =
  | { state: 'in_progress'; fingerprint: Fingerprint; stale: boolean }
  | { state: 'completed'; fingerprint: Fingerprint; response: StoredResponse };

interface Row {
  method: string;
  route: string;
  body_sha256: string;
  state: 'in_progress' | 'completed';
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
  started_at: Date;
  stale: boolean;
}

/** The gateway's idempotency records: PostgreSQL decides who runs a request, so any number of gateways agree. */
@Injectable()
export class IdempotencyRepository {
  private readonly s: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(MERCHANT_ADMIN_CONFIG) private readonly config: MerchantAdminConfig,
  ) {
    this.s = config.schema;
  }

  /** True when this request now owns the key (it was free); the primary key settles races. */
  async claim(shopId: string, key: string, fp: Fingerprint): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO "${this.s}".idempotency_keys (shop_id, idempotency_key, method, route, body_sha256, state)
       VALUES ($1, $2, $3, $4, $5, 'in_progress') ON CONFLICT DO NOTHING RETURNING 1`,
      [shopId, key, fp.method, fp.route, fp.bodySha256],
    );
    return rows.length === 1;
  }

  async find(shopId: string, key: string): Promise<IdempotencyRecord | undefined> {
    const [row]: Row[] = await this.dataSource.query(
      `SELECT method, route, body_sha256, state, response_status, response_headers, response_body, started_at,
              started_at < now() - make_interval(secs => $3) AS stale
       FROM "${this.s}".idempotency_keys WHERE shop_id = $1 AND idempotency_key = $2`,
      [shopId, key, this.config.idempotency.staleAfterMs / 1000],
    );
    if (!row) return undefined;
    const fingerprint = { method: row.method, route: row.route, bodySha256: row.body_sha256 };
    if (row.state === 'in_progress') return { state: 'in_progress', fingerprint, stale: row.stale };
    return {
      state: 'completed',
      fingerprint,
      response: { status: row.response_status!, headers: row.response_headers ?? {}, body: row.response_body ?? '' },
    };
  }

  /**
   * Takes over a record whose gateway died mid-request. Only one of several retries wins (the
   * row must still be stale when updated); running the request again is safe because the object
   * id derives from the key.
   */
  async takeOver(shopId: string, key: string): Promise<boolean> {
    const [, updated]: [unknown[], number] = await this.dataSource.query(
      `UPDATE "${this.s}".idempotency_keys SET started_at = now()
       WHERE shop_id = $1 AND idempotency_key = $2 AND state = 'in_progress' AND started_at < now() - make_interval(secs => $3) RETURNING 1`,
      [shopId, key, this.config.idempotency.staleAfterMs / 1000],
    );
    return updated === 1;
  }

  /**
   * Stores the answer, and the vault tokens of the cards the request carried. A card erased while
   * the request ran (so not found by `forgetCard`) has its body hash removed here.
   */
  async complete(shopId: string, key: string, response: StoredResponse, cardTokens: string[] = []): Promise<void> {
    const params = [shopId, key, response.status, JSON.stringify(response.headers), response.body];
    if (cardTokens.length === 0) {
      await this.dataSource.query(
        `UPDATE "${this.s}".idempotency_keys SET state = 'completed', response_status = $3, response_headers = $4, response_body = $5, completed_at = now()
         WHERE shop_id = $1 AND idempotency_key = $2 AND state = 'in_progress'`,
        params,
      );
      return;
    }
    await this.dataSource.query(
      `UPDATE "${this.s}".idempotency_keys SET state = 'completed', response_status = $3, response_headers = $4, response_body = $5,
              completed_at = now(), card_tokens = $6::text[],
              body_sha256 = CASE WHEN EXISTS (SELECT 1 FROM ${CARD_VAULT_SCHEMA}.cards
                                              WHERE token = ANY($6::text[]) AND erased_at IS NOT NULL)
                                 THEN '${CARD_ERASED}' ELSE body_sha256 END
       WHERE shop_id = $1 AND idempotency_key = $2 AND state = 'in_progress'`,
      [...params, cardTokens],
    );
  }

  /**
   * A card was erased: every record of a request that carried it loses its body hash (decision
   * 259). A replay of such a request is then refused (422) rather than answered. How many changed.
   */
  async forgetCard(token: string): Promise<number> {
    const [, updated]: [unknown[], number] = await this.dataSource.query(
      `UPDATE "${this.s}".idempotency_keys SET body_sha256 = '${CARD_ERASED}'
       WHERE card_tokens @> ARRAY[$1]::text[] AND body_sha256 <> '${CARD_ERASED}'`,
      [token],
    );
    return updated;
  }

  /** Forgets a request whose outcome is unknown or not worth keeping, so the merchant's retry runs again. */
  async release(shopId: string, key: string): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM "${this.s}".idempotency_keys WHERE shop_id = $1 AND idempotency_key = $2 AND state = 'in_progress'`,
      [shopId, key],
    );
  }

  /**
   * Deletes records created before `now` minus the retention, in batches so no statement holds
   * many row locks. Several gateways may run it at once: each deletes what the others have not.
   */
  async purge(now: Date, retentionHours: number, batch = 5000): Promise<number> {
    let total = 0;
    for (;;) {
      const result: [unknown[], number] = await this.dataSource.query(
        `DELETE FROM "${this.s}".idempotency_keys WHERE ctid IN (
           SELECT ctid FROM "${this.s}".idempotency_keys WHERE created_at < $1::timestamptz - make_interval(hours => $2) LIMIT $3 FOR UPDATE SKIP LOCKED)`,
        [now.toISOString(), retentionHours, batch],
      );
      const deleted = result[1];
      total += deleted;
      if (deleted < batch) return total;
    }
  }
}
