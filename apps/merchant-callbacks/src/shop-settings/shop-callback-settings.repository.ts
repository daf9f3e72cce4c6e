import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { ShopCallbackSettingsSnapshot } from '@payments/contracts';
import { MERCHANT_CALLBACKS_CONFIG, MerchantCallbacksConfig } from '../tokens';

export type ShopCallbackSettings =
  { kind: 'unknown' } | { kind: 'known'; callbackUrl: string | null; callbackSecret: string | null };

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
      `INSERT INTO ${this.table} (shop_id, version, callback_url, callback_secret, updated_at) VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (shop_id) DO UPDATE SET version = EXCLUDED.version, callback_url = EXCLUDED.callback_url,
         callback_secret = COALESCE(EXCLUDED.callback_secret, ${this.table}.callback_secret), updated_at = now()
       WHERE ${this.table}.version < EXCLUDED.version
       RETURNING shop_id`,
      [s.shopId, s.version, s.callbackUrl, s.callbackSecret ?? null],
    );
    return rows.length === 1;
  }

  async forShop(shopId: string): Promise<ShopCallbackSettings> {
    const rows: { callback_url: string | null; callback_secret: string | null }[] = await this.dataSource.query(
      `SELECT callback_url, callback_secret FROM ${this.table} WHERE shop_id = $1`,
      [shopId],
    );
    if (rows.length === 0) return { kind: 'unknown' };
    return { kind: 'known', callbackUrl: rows[0].callback_url, callbackSecret: rows[0].callback_secret };
  }
}
