import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { ProviderAccounts } from '@payments/contracts';

@Entity({ name: 'companies' })
export class CompanyEntity {
  @PrimaryColumn('uuid') id: string;
  @Column('text') name: string;
  /** The company setting "Use customer data as payer information". */
  @Column('boolean', { name: 'use_customer_data_as_payer' }) useCustomerDataAsPayer: boolean;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
}

@Entity({ name: 'shops' })
export class ShopEntity {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid', { name: 'company_id' }) companyId: string;
  @Column('text') name: string;
  @Column('text', { name: 'callback_url', nullable: true }) callbackUrl: string | null;
  /** Signs callbacks to the merchant; the merchant holds the same secret to verify them. */
  @Column('text', { name: 'callback_secret' }) callbackSecret: string;
  /** After a rotation: the replaced secret (sealed), still signing callbacks until it expires. */
  @Column('text', { name: 'previous_callback_secret', nullable: true }) previousCallbackSecret: string | null;
  @Column('timestamptz', { name: 'previous_callback_secret_expires_at', nullable: true })
  previousCallbackSecretExpiresAt: Date | null;
  @Column('numeric', { name: 'amount_deviation_lower_percent' }) amountDeviationLowerPercent: string;
  @Column('numeric', { name: 'amount_deviation_upper_percent' }) amountDeviationUpperPercent: string;
  @Column('boolean', { name: 'auto_finalize_need_action' }) autoFinalizeNeedAction: boolean;
  @Column('int', { name: 'processing_timeout_seconds' }) processingTimeoutSeconds: number;
  /** Processing timeout per payment setting (instrument type), in seconds. */
  @Column('jsonb', { name: 'processing_timeouts' }) processingTimeouts: Record<string, number>;
  @Column('int', { name: 'settings_version' }) settingsVersion: number;
  /** Payout via payment page: a payout without payee details answers a payout link (issue 20). */
  @Column('boolean', { name: 'payout_via_payment_page', default: false }) payoutViaPaymentPage: boolean;
  /** What an order or payout without `paymentPageDesign.format` gets (issue 20). */
  @Column('text', { name: 'default_integration', default: 'host_to_host' }) defaultIntegration:
    'host_to_host' | 'hosted';
  /** Domains a hosted page may send the payer back to (`redirectUrls`); a subdomain of one is allowed too. */
  @Column('jsonb', { name: 'redirect_domains', default: () => "'[]'::jsonb" }) redirectDomains: string[];
  /**
   * The shop's accounts with providers, by provider code (decision 341): the public ids as given,
   * the secret member sealed (`sealProviderSecret`), and when it was set.
   */
  @Column('jsonb', { name: 'provider_accounts', default: () => "'{}'::jsonb" }) providerAccounts: ProviderAccounts;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
}

@Entity({ name: 'api_keys' })
export class ApiKeyEntity {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid', { name: 'shop_id' }) shopId: string;
  /** SHA-256 of the key. Keys are 256 random bits, so a fast hash is enough; the key itself is never stored. */
  @Column('text', { name: 'key_hash' }) keyHash: string;
  /** The first characters, to tell keys apart in lists and logs. */
  @Column('text', { name: 'key_prefix' }) keyPrefix: string;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @Column('timestamptz', { name: 'expires_at', nullable: true }) expiresAt: Date | null;
  @Column('timestamptz', { name: 'revoked_at', nullable: true }) revokedAt: Date | null;
  /** Updated at most once a minute per key and gateway instance: a hint for operators, not an audit trail. */
  @Column('timestamptz', { name: 'last_used_at', nullable: true }) lastUsedAt: Date | null;
}
