import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { EnvelopeError, openProviderSecret } from '@payments/card-vault';
import type { ShopProviderSettingsSnapshot } from '@payments/contracts';
import { CALLBACKS_INGEST_CONFIG, CallbacksIngestConfig } from '../config';

/** A shop's account with a provider as a call is checked with it: the public ids and the secret, opened. */
export interface ShopAccount {
  shopId: string;
  settings: Record<string, string>;
  secret: string;
}

/** The member a call names the account by, and the one that is the secret, per provider (their folders' `settings.account`). */
const LOOKUP = {
  click: { by: 'serviceId', secret: 'secretKey' },
  payme: { by: 'merchantId', secret: 'key' },
} as const;

/**
 * This service's copy of shops' Click and Payme accounts, fed by `shops.settings` (decision 341).
 * The secrets stay sealed in the table; a call's account is read by the id the call names and its
 * secret opened then, so a changed key applies to the next call.
 */
@Injectable()
export class ShopProviderAccountsRepository {
  private readonly logger = new Logger('ProviderAccounts');
  private readonly table: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(CALLBACKS_INGEST_CONFIG) private readonly config: CallbacksIngestConfig,
  ) {
    this.table = `"${config.schema}".shop_provider_accounts`;
  }

  /** Stores a snapshot's accounts unless a newer snapshot is already there; true when stored. */
  async upsert(s: ShopProviderSettingsSnapshot): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO ${this.table} (shop_id, version, accounts, updated_at) VALUES ($1, $2, $3, now())
       ON CONFLICT (shop_id) DO UPDATE SET version = EXCLUDED.version, accounts = EXCLUDED.accounts, updated_at = now()
       WHERE ${this.table}.version < EXCLUDED.version
       RETURNING shop_id`,
      [s.shopId, s.version, JSON.stringify(s.providerAccounts ?? {})],
    );
    return rows.length === 1;
  }

  /**
   * The account of the Click service or Payme cashbox a call names; undefined when no shop has it or
   * it does not open. The gateway lets one shop hold a service at a time, but this copy is fed per
   * shop from different partitions: after a service moved from shop A to shop B, B's snapshot may
   * be here before A's without it (or A's was dead-lettered). The account set last (its `updatedAt`,
   * when an operator set it) is the current one; a plain LIMIT 1 would pick either.
   */
  async find(provider: keyof typeof LOOKUP, id: string): Promise<ShopAccount | undefined> {
    const { by, secret } = LOOKUP[provider];
    const rows: { shop_id: string; account: Record<string, string> }[] = await this.dataSource.query(
      // The provider and member are this file's constants: the expression matches the migration's index.
      `SELECT shop_id, accounts->'${provider}' AS account FROM ${this.table} WHERE accounts->'${provider}'->>'${by}' = $1
        ORDER BY accounts->'${provider}'->>'updatedAt' DESC NULLS LAST, updated_at DESC LIMIT 1`,
      [id],
    );
    if (rows.length === 0 || typeof rows[0].account?.[secret] !== 'string') return undefined;
    const { shop_id: shopId, account } = rows[0];
    try {
      return {
        shopId,
        settings: account,
        secret: openProviderSecret(this.config.secretKeys, shopId, provider, account[secret]),
      };
    } catch (err) {
      if (!(err instanceof EnvelopeError)) throw err;
      // The message names the key id, never a value: CARD_VAULT_KEYS lacks the key it was sealed under.
      this.logger.error(`shop ${shopId}: its ${provider} secret does not open: ${err.message}`);
      return undefined;
    }
  }
}
