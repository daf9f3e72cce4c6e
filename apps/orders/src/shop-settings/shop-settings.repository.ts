import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { DEFAULT_PROCESSING_TIMEOUT_SECONDS, ProviderIds, RouteStep, ShopSettingsSnapshot } from '@payments/contracts';
import { ShopRules, TimeoutSettings } from '@payments/orders-domain';
import { ORDERS_CONFIG, OrdersConfig } from '../config';

export interface OrderShopSettings {
  rules: ShopRules;
  timeouts: TimeoutSettings;
  useCustomerDataAsPayer: boolean;
  /** The shop's routes by method (decision 320), read with the settings: none, its methods' provider. */
  routes: Readonly<Record<string, readonly RouteStep[]>>;
}

/** Until technical support configures a shop: no amount deviation, no auto-finalization, 7 days. */
export const DEFAULT_SHOP_SETTINGS: OrderShopSettings = {
  rules: { amountDeviation: { lowerPercent: '0', upperPercent: '0' }, autoFinalizeNeedAction: false },
  timeouts: { defaultSeconds: DEFAULT_PROCESSING_TIMEOUT_SECONDS, byPaymentSetting: {} },
  useCustomerDataAsPayer: false,
  routes: {},
};

function fromSnapshot(s: ShopSettingsSnapshot): OrderShopSettings {
  return {
    rules: { amountDeviation: s.amountDeviation, autoFinalizeNeedAction: s.autoFinalizeNeedAction },
    timeouts: s.processingTimeout,
    useCustomerDataAsPayer: s.useCustomerDataAsPayer,
    routes: {},
  };
}

/** The most shops whose settings one instance keeps in memory; the oldest go first. */
const CACHED_SHOPS = 10_000;

/**
 * The orders service's copy of each shop's settings, fed by `shops.settings`. Every order reads
 * them (create, the provider's answer, each callback): a read is kept in memory for
 * `settingsCacheMs` (decision 238) and dropped at once when this instance stores a newer snapshot.
 * Settings reach orders through Kafka, so they already apply some time after an operator saved
 * them; the cache adds at most `settingsCacheMs` to that, for another instance's consumer's write.
 */
@Injectable()
export class ShopSettingsRepository {
  private readonly cache = new Map<string, { readAt: number; settings: OrderShopSettings }>();
  /** Bumped by every store: a read that began before it does not fill the cache with what it replaced. */
  private generation = 0;

  constructor(@Inject(ORDERS_CONFIG) private readonly config: OrdersConfig) {}

  async forShop(m: EntityManager, shopId: string): Promise<OrderShopSettings> {
    return (await this.forShops(m, [shopId])).get(shopId.toLowerCase())!;
  }

  /** The settings of many shops in one query (none when all are in memory), keyed by lower-case id; a shop without settings gets the defaults. */
  async forShops(m: EntityManager, shopIds: string[]): Promise<Map<string, OrderShopSettings>> {
    const now = Date.now();
    const result = new Map<string, OrderShopSettings>();
    const missing: string[] = [];
    // PostgreSQL answers uuids in lower case: the keys here are, whatever case the caller used.
    for (const id of shopIds.map((i) => i.toLowerCase())) {
      const hit = this.cache.get(id);
      if (hit && now - hit.readAt < this.config.settingsCacheMs) result.set(id, hit.settings);
      else missing.push(id);
    }
    if (missing.length === 0) return result;
    const generation = this.generation;
    // The routes come with the settings in the same statement (decision 321): no round trip more.
    const schema = `"${this.config.schema}"`;
    const rows: {
      shop_id: string;
      settings: ShopSettingsSnapshot | null;
      routes?: Record<string, RouteStep[]> | null;
    }[] = await m.query(
      `SELECT shop_id, settings, routes FROM (
         SELECT k.shop_id, s.settings,
                (SELECT jsonb_object_agg(r.method, r.providers) FROM ${schema}.shop_routes r WHERE r.shop_id = k.shop_id) AS routes
           FROM unnest($1::uuid[]) AS k(shop_id) LEFT JOIN ${schema}.shop_settings s ON s.shop_id = k.shop_id) AS found
        WHERE settings IS NOT NULL OR routes IS NOT NULL`,
      [missing],
    );
    const found = new Map(
      rows.map((r) => {
        const settings = r.settings ? fromSnapshot(r.settings) : DEFAULT_SHOP_SETTINGS;
        return [r.shop_id, r.routes ? { ...settings, routes: r.routes } : settings];
      }),
    );
    for (const id of missing) {
      const settings = found.get(id) ?? DEFAULT_SHOP_SETTINGS;
      result.set(id, settings);
      if (this.config.settingsCacheMs > 0 && generation === this.generation) this.keep(id, settings, now);
    }
    return result;
  }

  private keep(shopId: string, settings: OrderShopSettings, readAt: number): void {
    this.cache.delete(shopId);
    if (this.cache.size >= CACHED_SHOPS) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(shopId, { readAt, settings });
  }

  /** Forgets a shop's settings in memory: a newer snapshot or a route is being stored, or has been. */
  forget(shopId: string): void {
    this.generation++;
    this.cache.delete(shopId.toLowerCase());
  }

  /**
   * What the shop's hosted pages show of it: its name and the public ids of its accounts with app
   * providers (decision 342); nothing until its settings arrived. The snapshot stored here never
   * held a provider's secret: the consumer's schema leaves the sealed accounts out.
   */
  async pageFacts(m: EntityManager, shopId: string): Promise<{ shopName?: string; providerIds?: ProviderIds }> {
    const rows: { name: string | null; ids: ProviderIds | null }[] = await m.query(
      `SELECT settings ->> 'shopName' AS name, settings -> 'providerIds' AS ids FROM "${this.config.schema}".shop_settings WHERE shop_id = $1`,
      [shopId],
    );
    const ids = rows[0]?.ids;
    return {
      ...(rows[0]?.name ? { shopName: rows[0].name } : {}),
      ...(ids && Object.keys(ids).length > 0 ? { providerIds: ids } : {}),
    };
  }

  /** Stores a snapshot unless a newer one is already there; true when stored. */
  async upsert(m: EntityManager, snapshot: ShopSettingsSnapshot): Promise<boolean> {
    this.forget(snapshot.shopId);
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
