import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { ShopCallbackSettingsSnapshot } from '@payments/contracts';
import { MERCHANT_CALLBACKS_CONFIG, MerchantCallbacksConfig } from '../tokens';

export type ShopCallbackSettings =
  | { kind: 'unknown' }
  | {
      kind: 'known';
      callbackUrl: string | null;
      callbackSecret: string | null;
      /** After a rotation, until it expires: callbacks are signed with it too. */
      previousCallbackSecret: string | null;
      previousCallbackSecretExpiresAt: Date | null;
    };

/** This service's copy of each shop's callback URL and secret, fed by `shops.settings`. */
@Injectable()
export class ShopCallbackSettingsRepository {
  private readonly table: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(MERCHANT_CALLBACKS_CONFIG) config: MerchantCallbacksConfig,
  ) {
    this.table = `"${config.schema}".shops`;
  }

  /** Stores a snapshot unless a newer one is already there; true when stored. */
  async upsert(m: EntityManager, s: ShopCallbackSettingsSnapshot): Promise<boolean> {
    const rows: unknown[] = await m.query(
      `INSERT INTO ${this.table} (shop_id, version, callback_url, callback_secret, previous_callback_secret,
         previous_callback_secret_expires_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, now())
       ON CONFLICT (shop_id) DO UPDATE SET version = EXCLUDED.version, callback_url = EXCLUDED.callback_url,
         callback_secret = COALESCE(EXCLUDED.callback_secret, ${this.table}.callback_secret),
         previous_callback_secret = EXCLUDED.previous_callback_secret,
         previous_callback_secret_expires_at = EXCLUDED.previous_callback_secret_expires_at, updated_at = now()
       WHERE ${this.table}.version < EXCLUDED.version
       RETURNING shop_id`,
      [
        s.shopId,
        s.version,
        s.callbackUrl,
        s.callbackSecret ?? null,
        s.previousCallbackSecret ?? null,
        s.previousCallbackSecretExpiresAt ?? null,
      ],
    );
    return rows.length === 1;
  }

  /** Callback secrets as stored, for the boot-time re-sealing. */
  async secrets(): Promise<Array<{ shopId: string; secret: string }>> {
    const rows: { shop_id: string; secret: string }[] = await this.dataSource.query(
      `SELECT shop_id, callback_secret AS secret FROM ${this.table} WHERE callback_secret IS NOT NULL
       UNION ALL
       SELECT shop_id, previous_callback_secret FROM ${this.table} WHERE previous_callback_secret IS NOT NULL`,
    );
    return rows.map((r) => ({ shopId: r.shop_id, secret: r.secret }));
  }

  /** Replaces a secret by its re-sealed form, unless a newer snapshot changed it meanwhile. */
  async replaceSecret(shopId: string, stored: string, resealed: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE ${this.table} SET
         callback_secret = CASE WHEN callback_secret = $2 THEN $3 ELSE callback_secret END,
         previous_callback_secret = CASE WHEN previous_callback_secret = $2 THEN $3 ELSE previous_callback_secret END
       WHERE shop_id = $1`,
      [shopId, stored, resealed],
    );
  }

  async forShop(shopId: string): Promise<ShopCallbackSettings> {
    const rows: {
      callback_url: string | null;
      callback_secret: string | null;
      previous_callback_secret: string | null;
      previous_callback_secret_expires_at: Date | null;
    }[] = await this.dataSource.query(
      `SELECT callback_url, callback_secret, previous_callback_secret, previous_callback_secret_expires_at
       FROM ${this.table} WHERE shop_id = $1`,
      [shopId],
    );
    if (rows.length === 0) return { kind: 'unknown' };
    const r = rows[0];
    return {
      kind: 'known',
      callbackUrl: r.callback_url,
      callbackSecret: r.callback_secret,
      previousCallbackSecret: r.previous_callback_secret,
      previousCallbackSecretExpiresAt: r.previous_callback_secret_expires_at,
    };
  }
}
