import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { PayoutInstrumentType, PayoutStatus } from '@payments/contracts';
import type { TransferNeedActionReason } from '@payments/transfers-domain';
import { NumericStringTransformer } from '@payments/platform';

@Entity({ name: 'payouts' })
export class PayoutEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column('uuid', { name: 'shop_id' })
  shopId: string;

  @Column('text', { name: 'merchant_payout_id' })
  merchantPayoutId: string;

  /** The shop's payout method code, as resolved through `methods`. */
  @Column('text')
  method: string;

  /** The provider the method sends through. */
  @Column('text')
  provider: string;

  @Column('text')
  status: PayoutStatus;

  @Column('text', { name: 'status_code', nullable: true })
  statusCode: string | null;

  @Column('numeric', { transformer: NumericStringTransformer })
  amount: string;

  @Column('text')
  currency: string;

  @Column('text', { name: 'token_standard', nullable: true })
  tokenStandard: string | null;

  /** Existing field, unchanged: stored and answered as the merchant gave it. */
  @Column('text', { name: 'crypto_token_standard', nullable: true })
  cryptoTokenStandard: string | null;

  @Column('text', { nullable: true })
  description: string | null;

  @Column('text', { name: 'instrument_type', nullable: true })
  instrumentType: PayoutInstrumentType | null;

  @Column('text', { name: 'wallet_type', nullable: true })
  walletType: 'personal' | 'company' | null;

  /** In full: the provider needs it. Answered and logged only masked. */
  @Column('jsonb')
  payee: Record<string, unknown>;

  @Column('text', { name: 'callback_url', nullable: true })
  callbackUrl: string | null;

  @Column('text', { name: 'need_action_reason', nullable: true })
  needActionReason: TransferNeedActionReason | null;

  @Column('numeric', { name: 'reported_amount', nullable: true, transformer: NumericStringTransformer })
  reportedAmount: string | null;

  @Column('text', { name: 'reported_currency', nullable: true })
  reportedCurrency: string | null;

  /** Bumped with every status change; merchants order callbacks by it. */
  @Column('int')
  sequence: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
