import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { preparedQuery } from '@payments/platform';
import { MERCHANT_ADMIN_CONFIG, MerchantAdminConfig } from './merchant-admin.config';
import { generateApiKey } from './api-keys';

export type ApiKeyStatus = 'active' | 'expired' | 'revoked';

/** What operators see of a key: never the key nor its hash. */
export interface ApiKeyView {
  id: string;
  shopId: string;
  prefix: string;
  status: ApiKeyStatus;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

/** What order creation reads of the key's shop: loaded with the key, so creating costs no query of its own. */
export interface ShopRequestSettings {
  redirectDomains: string[];
  defaultIntegration: 'host_to_host' | 'hosted';
}

export interface ActiveKey {
  id: string;
  shopId: string;
  companyId: string;
  settings: ShopRequestSettings;
}

interface KeyRow {
  id: string;
  shop_id: string;
  key_prefix: string;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  /** Evaluated by PostgreSQL, so the guard and this view agree on one clock. */
  status: ApiKeyStatus;
}

export type RotateOutcome =
  | { kind: 'rotated'; key: string; created: ApiKeyView; previous: ApiKeyView }
  | { kind: 'not_found' }
  | { kind: 'not_active'; current: ApiKeyView };

const TOUCH_EVERY_MS = 60_000;

@Injectable()
export class ApiKeyRepository {
  private readonly s: string;
  private readonly touched = new Map<string, number>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(MERCHANT_ADMIN_CONFIG) config: MerchantAdminConfig,
  ) {
    this.s = config.schema;
  }

  private columns(alias = 'k'): string {
    return `${alias}.id, ${alias}.shop_id, ${alias}.key_prefix, ${alias}.created_at, ${alias}.expires_at, ${alias}.revoked_at, ${alias}.last_used_at,
      CASE WHEN ${alias}.revoked_at IS NOT NULL THEN 'revoked' WHEN ${alias}.expires_at IS NOT NULL AND ${alias}.expires_at <= now() THEN 'expired' ELSE 'active' END AS status`;
  }

  /**
   * The key's shop, when the key is neither revoked nor expired. No cache: a revocation or the end
   * of a rotation overlap takes effect on the very next request on every gateway instance.
   */
  async findActive(keyHash: string): Promise<ActiveKey | undefined> {
    // Every merchant request: prepared once per connection (decision 247).
    const rows = await preparedQuery<{
      id: string;
      shop_id: string;
      company_id: string;
      redirect_domains: string[] | null;
      default_integration: ShopRequestSettings['defaultIntegration'] | null;
    }>(
      this.dataSource,
      `SELECT k.id, k.shop_id, s.company_id, s.redirect_domains, s.default_integration
       FROM "${this.s}".api_keys k JOIN "${this.s}".shops s ON s.id = k.shop_id
       WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())`,
      [keyHash],
    );
    const row = rows[0];
    if (!row) return undefined;
    return {
      id: row.id,
      shopId: row.shop_id,
      companyId: row.company_id,
      settings: {
        redirectDomains: row.redirect_domains ?? [],
        defaultIntegration: row.default_integration ?? 'host_to_host',
      },
    };
  }

  /** Records use at most once a minute per key and instance, off the request path, so it costs no latency. */
  touch(keyId: string, nowMs: number): void {
    const last = this.touched.get(keyId);
    if (last !== undefined && nowMs - last < TOUCH_EVERY_MS) return;
    this.touched.set(keyId, nowMs);
    if (this.touched.size > 100_000) this.touched.clear();
    this.dataSource.query(`UPDATE "${this.s}".api_keys SET last_used_at = now() WHERE id = $1`, [keyId]).catch(() => {
      // A lost hint: the next use within a minute on another instance, or after a minute here, writes it.
    });
  }

  async list(shopId: string): Promise<ApiKeyView[]> {
    const rows: KeyRow[] = await this.dataSource.query(
      `SELECT ${this.columns()} FROM "${this.s}".api_keys k WHERE k.shop_id = $1 ORDER BY k.created_at, k.id`,
      [shopId],
    );
    return rows.map(toView);
  }

  create(shopId: string, expiresAt: Date | null): Promise<{ key: string; view: ApiKeyView }> {
    return this.createIn(this.dataSource.manager, shopId, expiresAt);
  }

  /** A new key of the shop, in the caller's transaction (the first key, with its shop). */
  async createIn(m: EntityManager, shopId: string, expiresAt: Date | null): Promise<{ key: string; view: ApiKeyView }> {
    const key = generateApiKey();
    const rows: KeyRow[] = await m.query(
      `INSERT INTO "${this.s}".api_keys AS k (id, shop_id, key_hash, key_prefix, expires_at) VALUES ($1, $2, $3, $4, $5) RETURNING ${this.columns()}`,
      [randomUUID(), shopId, key.hash, key.prefix, expiresAt],
    );
    return { key: key.key, view: toView(rows[0]) };
  }

  /** Revoking twice keeps the first revocation time. */
  async revoke(shopId: string, keyId: string): Promise<ApiKeyView | undefined> {
    // TypeORM answers an UPDATE with [rows, count].
    const [rows]: [KeyRow[], number] = await this.dataSource.query(
      `UPDATE "${this.s}".api_keys k SET revoked_at = COALESCE(k.revoked_at, now()) WHERE k.id = $1 AND k.shop_id = $2 RETURNING ${this.columns()}`,
      [keyId, shopId],
    );
    return rows[0] ? toView(rows[0]) : undefined;
  }

  /**
   * A new key, and the old one ends `overlapSeconds` from now (or earlier, if it was to expire
   * sooner), so the merchant can deploy the new key without a window of 401s. The old key's row is
   * locked, so two concurrent rotations of one key cannot both succeed.
   */
  async rotate(shopId: string, keyId: string, overlapSeconds: number, expiresAt: Date | null): Promise<RotateOutcome> {
    return this.dataSource.transaction(async (m) => {
      const [old]: KeyRow[] = await m.query(
        `SELECT ${this.columns()} FROM "${this.s}".api_keys k WHERE k.id = $1 AND k.shop_id = $2 FOR UPDATE`,
        [keyId, shopId],
      );
      if (!old) return { kind: 'not_found' };
      if (old.status !== 'active') return { kind: 'not_active', current: toView(old) };
      const [[previous]]: [KeyRow[], number] = await m.query(
        `UPDATE "${this.s}".api_keys k SET expires_at = LEAST(COALESCE(k.expires_at, 'infinity'::timestamptz), now() + make_interval(secs => $2))
         WHERE k.id = $1 RETURNING ${this.columns()}`,
        [keyId, overlapSeconds],
      );
      const key = generateApiKey();
      const [created]: KeyRow[] = await m.query(
        `INSERT INTO "${this.s}".api_keys AS k (id, shop_id, key_hash, key_prefix, expires_at) VALUES ($1, $2, $3, $4, $5) RETURNING ${this.columns()}`,
        [randomUUID(), shopId, key.hash, key.prefix, expiresAt],
      );
      return { kind: 'rotated', key: key.key, created: toView(created), previous: toView(previous) };
    });
  }
}

function toView(row: KeyRow): ApiKeyView {
  const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
  return {
    id: row.id,
    shopId: row.shop_id,
    prefix: row.key_prefix,
    status: row.status,
    createdAt: new Date(row.created_at).toISOString(),
    expiresAt: iso(row.expires_at),
    revokedAt: iso(row.revoked_at),
    lastUsedAt: iso(row.last_used_at),
  };
}
