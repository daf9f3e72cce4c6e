import { Column, CreateDateColumn, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { TransferStatus } from '@payments/contracts';
import type { TransferNeedActionReason } from '@payments/transfers-domain';
import { NumericStringTransformer } from '@payments/platform';

/**
 * The columns every transfer table has (payouts, P2P transactions). Each kind's entity extends
 * this with its own columns and its table name; the tables themselves are the kinds' migrations.
 */
export abstract class TransferEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column('uuid', { name: 'shop_id' })
  shopId: string;

  /** The provider the transfer is sent through. */
  @Column('text')
  provider: string;

  @Column('text')
  status: TransferStatus;

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
