import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { P2pParty, P2pStatus } from '@payments/contracts';
import type { TransferNeedActionReason } from '@payments/transfers-domain';
import { NumericStringTransformer } from '@payments/platform';

@Entity({ name: 'transactions' })
export class P2pEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column('uuid', { name: 'shop_id' })
  shopId: string;

  @Column('text', { name: 'merchant_p2p_id' })
  merchantP2pId: string;

  /** The provider the transaction is sent through. */
  @Column('text')
  provider: string;

  @Column('text')
  status: P2pStatus;

  @Column('text', { name: 'status_code', nullable: true })
  statusCode: string | null;

  @Column('numeric', { transformer: NumericStringTransformer })
  amount: string;

  @Column('text')
  currency: string;

  @Column('text', { name: 'token_standard', nullable: true })
  tokenStandard: string | null;

  @Column('text', { nullable: true })
  description: string | null;

  /** In full: the provider needs them. Answered and logged only masked. */
  @Column('jsonb', { nullable: true })
  sender: P2pParty | null;

  @Column('jsonb', { nullable: true })
  recipient: P2pParty | null;

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
