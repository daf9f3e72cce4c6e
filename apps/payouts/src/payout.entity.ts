import { Column, Entity } from 'typeorm';
import type { PayoutInstrumentType } from '@payments/contracts';
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

  /** In full: the provider needs it. Answered and logged only masked. */
  @Column('jsonb')
  payee: Record<string, unknown>;
}
