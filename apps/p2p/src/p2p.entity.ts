import { Column, Entity } from 'typeorm';
import type { P2pPartyCommand } from '@payments/contracts';
import { TransferEntity } from '@payments/transfers';

@Entity({ name: 'transactions' })
export class P2pEntity extends TransferEntity {
  @Column('text', { name: 'merchant_p2p_id' })
  merchantP2pId: string;

  /** A card as its card vault token (docs/security.md); answered and logged masked. */
  @Column('jsonb', { nullable: true })
  sender: P2pPartyCommand | null;

  @Column('jsonb', { nullable: true })
  recipient: P2pPartyCommand | null;
}
