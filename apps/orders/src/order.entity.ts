import {
  Column,
  CreateDateColumn,
  Entity,
  OneToMany,
  PrimaryColumn,
  UpdateDateColumn,
  ManyToOne,
  JoinColumn,
} from 'typeorm';
import type {
  InstrumentType,
  MerchantBalance,
  OrderStatus,
  PageLocale,
  PaymentInstructions,
} from '@payments/contracts';
import type { NeedAction, NeedActionReason } from '@payments/orders-domain';
import { NumericStringTransformer } from '@payments/platform';

@Entity({ name: 'orders' })
export class OrderEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column('uuid', { name: 'shop_id' })
  shopId: string;

  @Column('text', { name: 'merchant_order_id' })
  merchantOrderId: string;

  @Column('text')
  status: OrderStatus;

  @Column('text', { name: 'status_code', nullable: true })
  statusCode: string | null;

  /** The amount of the order: the accepted one, once a different amount was accepted. */
  @Column('numeric', { transformer: NumericStringTransformer })
  amount: string;

  /** The amount the merchant asked for, kept when a provider's different amount was accepted. */
  @Column('numeric', { name: 'original_amount', transformer: NumericStringTransformer })
  originalAmount: string;

  @Column('numeric', { name: 'reported_amount', nullable: true, transformer: NumericStringTransformer })
  reportedAmount: string | null;

  @Column('text')
  currency: string;

  @Column('text', { name: 'token_standard', nullable: true })
  tokenStandard: string | null;

  @Column('text', { name: 'need_action_reason', nullable: true })
  needActionReason: NeedActionReason | null;

  /** Why the order waits in need_action, as decided when it got there (issue 17); null otherwise. */
  @Column('jsonb', { name: 'need_action', nullable: true })
  needAction: NeedAction | null;

  @Column('text', { nullable: true })
  description: string | null;

  @Column('jsonb', { nullable: true })
  payer: Record<string, unknown> | null;

  @Column('text', { name: 'instrument_type', nullable: true })
  instrumentType: InstrumentType | null;

  @Column('jsonb', { name: 'payment_settings', nullable: true })
  paymentSettings: { walletType?: 'personal' | 'company' } | null;

  /** The merchant's callback URL for this order only; the shop's applies when null. */
  @Column('text', { name: 'callback_url', nullable: true })
  callbackUrl: string | null;

  @Column('jsonb', { nullable: true })
  recipient: { merchantBalance?: MerchantBalance } | null;

  /** When the order fails without a terminal provider response; null for crypto payments. */
  @Column('timestamptz', { name: 'processing_deadline', nullable: true })
  processingDeadline: Date | null;

  @Column('uuid', { name: 'customer_id', nullable: true })
  customerId: string | null;

  /** Crypto payments are never failed by the processing timeout (spec section 3). */
  @Column('boolean', { name: 'is_crypto' })
  isCrypto: boolean;

  /** Hosted page (issue 20): SHA-256 (hex) of the link's token; null for a host-to-host order. */
  @Column('text', { name: 'link_hash', nullable: true })
  linkHash: string | null;

  @Column('timestamptz', { name: 'link_expires_at', nullable: true })
  linkExpiresAt: Date | null;

  /** When the payer submitted the link's one payment. */
  @Column('timestamptz', { name: 'link_used_at', nullable: true })
  linkUsedAt: Date | null;

  @Column('text', { name: 'page_locale', nullable: true })
  pageLocale: PageLocale | null;

  @Column('jsonb', { name: 'redirect_urls', nullable: true })
  redirectUrls: { success?: string; failure?: string } | null;

  /** The card typed on the hosted page: its vault token, sent in clear only by the dispatcher. */
  @Column('text', { name: 'card_token', nullable: true })
  cardToken: string | null;

  @Column('text', { name: 'card_masked', nullable: true })
  cardMasked: string | null;

  /** The method the payer chose on the hosted page (its code). */
  @Column('text', { name: 'page_method', nullable: true })
  pageMethod: string | null;

  /** For an app method: the deeplinks and QR the provider adapter built for the payment. */
  @Column('jsonb', { nullable: true })
  instructions: PaymentInstructions | null;

  /** Bumped with every status change; merchants order callbacks by it. */
  @Column('int')
  sequence: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  @OneToMany(() => PaymentAttemptEntity, (a) => a.order)
  payments?: PaymentAttemptEntity[];
}

@Entity({ name: 'payment_attempts' })
export class PaymentAttemptEntity {
  @PrimaryColumn('uuid', { name: 'order_id' })
  orderId: string;

  /** The provider's id of the attempt; unique within the order. */
  @PrimaryColumn('text', { name: 'payment_id' })
  paymentId: string;

  @ManyToOne(() => OrderEntity, (o) => o.payments)
  @JoinColumn({ name: 'order_id' })
  order?: OrderEntity;

  @Column('text')
  provider: string;

  @Column('text')
  status: string;

  @Column('numeric', { nullable: true, transformer: NumericStringTransformer })
  amount: string | null;

  @Column('text', { nullable: true })
  currency: string | null;

  @Column('text', { name: 'status_code', nullable: true })
  statusCode: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
