import { Column, Entity } from 'typeorm';
import type { CardRef, PayoutInstrumentType } from '@payments/contracts';
import { TransferEntity } from '@payments/transfers';

@Entity({ name: 'payouts' })
export class PayoutEntity extends TransferEntity {
  @Column('text', { name: 'merchant_payout_id' })
  merchantPayoutId: string;

  /** The shop's payout method code, as resolved through `methods`. */
  @Column('text')
  method: string;

  /** Existing field, unchanged: stored and answered as the merchant gave it. */
  @Column('text', { name: 'crypto_token_standard', nullable: true })
  cryptoTokenStandard: string | null;

  @Column('text', { name: 'instrument_type', nullable: true })
  instrumentType: PayoutInstrumentType | null;

  @Column('text', { name: 'wallet_type', nullable: true })
  walletType: 'personal' | 'company' | null;

  /** The payee's fields but its card numbers; answered and logged masked. */
  @Column('jsonb')
  payee: Record<string, unknown>;

  /** The payee fields that are card numbers, as card vault tokens (docs/security.md). */
  @Column('jsonb', { name: 'payee_cards', nullable: true })
  payeeCards: Record<string, CardRef> | null;

  /** Payout via payment page: SHA-256 of the link's token; null for a payout with its payee given. */
  @Column('text', { name: 'link_hash', nullable: true })
  linkHash: string | null;

  @Column('timestamptz', { name: 'link_expires_at', nullable: true })
  linkExpiresAt: Date | null;

  /** When the recipient submitted the payee on the link: one submission per link. */
  @Column('timestamptz', { name: 'link_used_at', nullable: true })
  linkUsedAt: Date | null;

  @Column('text', { name: 'page_locale', nullable: true })
  pageLocale: 'uz' | 'ru' | 'en' | null;

  @Column('jsonb', { name: 'redirect_urls', nullable: true })
  redirectUrls: { success?: string; failure?: string } | null;
}
