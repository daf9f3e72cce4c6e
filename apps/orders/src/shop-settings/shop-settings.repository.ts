import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { DEFAULT_PROCESSING_TIMEOUT_SECONDS, ShopSettingsSnapshot } from '@payments/contracts';
import { ShopRules, TimeoutSettings } from '@payments/orders-domain';
import { ORDERS_CONFIG, OrdersConfig } from '../config';

export interface OrderShopSettings {
  rules: ShopRules;
  timeouts: TimeoutSettings;
  useCustomerDataAsPayer: boolean;
}

/** Until technical support configures a shop: no amount deviation, no auto-finalization, 7 days. */
export const DEFAULT_SHOP_SETTINGS: OrderShopSettings = {
  rules: { amountDeviation: { lowerPercent: '0', upperPercent: '0' }, autoFinalizeNeedAction: false },
  timeouts: { defaultSeconds: DEFAULT_PROCESSING_TIMEOUT_SECONDS, byPaymentSetting: {} },
  useCustomerDataAsPayer: false,
};

function fromSnapshot(s: ShopSettingsSnapshot): OrderShopSettings {
  return {
    rules: { amountDeviation: s.amountDeviation, autoFinalizeNeedAction: s.autoFinalizeNeedAction },
    timeouts: s.processingTimeout,
    useCustomerDataAsPayer: s.useCustomerDataAsPayer,
  };
}

/** The orders service's copy of each shop's settings, fed by `shops.settings`. */
@Injectable()
export class ShopSettingsRepository {
  constructor(@Inject(ORDERS_CONFIG) private readonly config: OrdersConfig) {}

  async forShop(m: EntityManager, shopId: string): Promise<OrderShopSettings> {
    const rows: { settings: ShopSettingsSnapshot }[] = await m.query(
      `SELECT settings FROM "${this.config.schema}".shop_settings WHERE shop_id = $1`,
      [shopId],
    );
    return rows.length === 0 ? DEFAULT_SHOP_SETTINGS : fromSnapshot(rows[0].settings);
  }

  /** The settings of many shops in one query; a shop without settings gets the defaults. */
  async forShops(m: EntityManager, shopIds: string[]): Promise<Map<string, OrderShopSettings>> {
    const rows: { shop_id: string; settings: ShopSettingsSnapshot }[] = await m.query(
      `SELECT shop_id, settings FROM "${this.config.schema}".shop_settings WHERE shop_id = ANY($1::uuid[])`,
      [shopIds],
    );
    const found = new Map(rows.map((r) => [r.shop_id, fromSnapshot(r.settings)]));
    return new Map(shopIds.map((id) => [id, found.get(id) ?? DEFAULT_SHOP_SETTINGS]));
  }

  /** The shop's name as payers see it on hosted pages; undefined until its settings arrived. */
  async shopName(m: EntityManager, shopId: string): Promise<string | undefined> {
    const rows: { name: string | null }[] = await m.query(
      `SELECT settings ->> 'shopName' AS name FROM "${this.config.schema}".shop_settings WHERE shop_id = $1`,
      [shopId],
    );
    return rows[0]?.name ?? undefined;
  }

  /** Stores a snapshot unless a newer one is already there; true when stored. */
  async upsert(m: EntityManager, snapshot: ShopSettingsSnapshot): Promise<boolean> {
    const rows: unknown[] = await m.query(
      `INSERT INTO "${this.config.schema}".shop_settings (shop_id, version, settings, updated_at) VALUES ($1, $2, $3::jsonb, now())
       ON CONFLICT (shop_id) DO UPDATE SET version = EXCLUDED.version, settings = EXCLUDED.settings, updated_at = now()
       WHERE "${this.config.schema}".shop_settings.version < EXCLUDED.version
       RETURNING shop_id`,
      [snapshot.shopId, snapshot.version, JSON.stringify(snapshot)],
    );
    return rows.length === 1;
  }
}
