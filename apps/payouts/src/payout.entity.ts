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
}
