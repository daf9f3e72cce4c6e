import { Column, Entity, PrimaryColumn } from 'typeorm';
import type {
  CardBrand,
  DataEntryMode,
  MethodCurrency,
  MethodDirection,
  MethodInstrumentType,
  WalletType,
} from '@payments/contracts';

/** The columns both tables share; payment and payout methods differ in use, not in shape. */
abstract class MethodColumns {
  @PrimaryColumn('uuid')
  id: string;

  @Column('uuid', { name: 'shop_id' })
  shopId: string;

  @Column('text')
  code: string;

  @Column('text', { name: 'instrument_type' })
  instrumentType: MethodInstrumentType;

  @Column('text', { name: 'card_brands', array: true, nullable: true })
  cardBrands: CardBrand[] | null;

  /** Null: the instrument type's default (card_form for cards, instruction for the rest). */
  @Column('text', { name: 'data_entry_mode', nullable: true })
  dataEntryMode: DataEntryMode | null;

  @Column('jsonb')
  currencies: MethodCurrency[];

  @Column('text')
  provider: string;

  @Column('text', { name: 'wallet_types', array: true })
  walletTypes: WalletType[];

  @Column('boolean')
  enabled: boolean;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt: Date;
}

@Entity({ name: 'payment_methods' })
export class PaymentMethodEntity extends MethodColumns {}

@Entity({ name: 'payout_methods' })
export class PayoutMethodEntity extends MethodColumns {}

export type MethodEntity = PaymentMethodEntity | PayoutMethodEntity;

export function entityOf(direction: MethodDirection): typeof PaymentMethodEntity | typeof PayoutMethodEntity {
  return direction === 'payment' ? PaymentMethodEntity : PayoutMethodEntity;
}
