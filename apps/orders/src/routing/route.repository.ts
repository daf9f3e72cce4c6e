import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { OperatorIdentity, RouteStep, RouteView } from '@payments/contracts';
import { ORDERS_CONFIG, OrdersConfig } from '../config';

interface RouteRow {
  shop_id: string;
  method: string;
  providers: RouteStep[];
  updated_at: Date;
}

const viewOf = (r: RouteRow): RouteView => ({
  shopId: r.shop_id,
  method: r.method,
  providers: r.providers,
  updatedAt: new Date(r.updated_at).toISOString(),
});

/**
 * The shops' routes (decision 320), as operators set them. Orders read them with the shop's
 * settings (ShopSettingsRepository, decision 321); this is the operators' side.
 */
@Injectable()
export class RouteRepository {
  constructor(@Inject(ORDERS_CONFIG) private readonly config: OrdersConfig) {}

  private get table(): string {
    return `"${this.config.schema}".shop_routes`;
  }

  async find(m: EntityManager, shopId: string, method: string): Promise<RouteView | null> {
    const rows: RouteRow[] = await m.query(
      `SELECT shop_id, method, providers, updated_at FROM ${this.table} WHERE shop_id = $1 AND method = $2`,
      [shopId, method],
    );
    return rows[0] ? viewOf(rows[0]) : null;
  }

  async upsert(
    m: EntityManager,
    route: { shopId: string; method: string; providers: RouteStep[] },
    operator: OperatorIdentity | undefined,
    now: Date,
  ): Promise<RouteView> {
    const rows: RouteRow[] = await m.query(
      `INSERT INTO ${this.table} (shop_id, method, providers, updated_at, updated_by) VALUES ($1, $2, $3::jsonb, $4, $5::jsonb)
       ON CONFLICT (shop_id, method) DO UPDATE SET providers = EXCLUDED.providers, updated_at = EXCLUDED.updated_at,
         updated_by = EXCLUDED.updated_by
       RETURNING shop_id, method, providers, updated_at`,
      [
        route.shopId,
        route.method,
        JSON.stringify(route.providers),
        now.toISOString(),
        JSON.stringify(operator ?? null),
      ],
    );
    return viewOf(rows[0]);
  }

  async delete(m: EntityManager, shopId: string, method: string): Promise<boolean> {
    // Counted by a SELECT: TypeORM answers a bare DELETE with [rows, count], not its rows.
    const rows: { n: number }[] = await m.query(
      `WITH d AS (DELETE FROM ${this.table} WHERE shop_id = $1 AND method = $2 RETURNING 1) SELECT count(*)::int AS n FROM d`,
      [shopId, method],
    );
    return rows[0].n > 0;
  }
}

/**
 * The order's attempts other than `paymentId` (decision 343): the providers they went to,
 * dispatched by us or reported by a provider's callback (never tried twice, decision 322), and
 * whether any of them may have taken the money: accepted or timed out, a send that may have
 * reached its provider or whose answer was never recorded, or a provider's report that it has it
 * (`pending`, `success`).
 */
export async function otherAttempts(
  m: EntityManager,
  schema: string,
  orderId: string,
  paymentId: string,
): Promise<{ tried: Set<string>; mayHaveTaken: boolean }> {
  const rows: { provider: string; taken: boolean }[] = await m.query(
    `SELECT provider, (status IN ('accepted', 'timed_out') OR may_have_reached
              OR (status <> 'skipped' AND sends > cardinality(send_answers))) AS taken
       FROM "${schema}".provider_dispatches WHERE order_id = $1 AND payment_id <> $2
     UNION ALL
     SELECT provider, status IN ('pending', 'success') AS taken
       FROM "${schema}".payment_attempts WHERE order_id = $1 AND payment_id <> $2`,
    [orderId, paymentId],
  );
  return { tried: new Set(rows.map((r) => r.provider)), mayHaveTaken: rows.some((r) => r.taken) };
}
