import { Column, Entity } from 'typeorm';
import type { P2pParty } from '@payments/contracts';
import { TransferEntity } from '@payments/transfers';

@Entity({ name: 'transactions' })
export class P2pEntity extends TransferEntity {
  @Column('text', { name: 'merchant_p2p_id' })
  merchantP2pId: string;

  /** In full: the provider needs them. Answered and logged only masked. */
  @Column('jsonb', { nullable: true })
  sender: P2pParty | null;

  @Column('jsonb', { nullable: true })
  recipient: P2pParty | null;
}
