import { Column, Entity } from 'typeorm';
import { TransferEntity } from './transfer.entity';
import { defineTransferKind } from './transfer-kind';
import { toTransferStatusChanged, toTransferView } from './transfer-view';

@Entity({ name: 'gifts' })
class GiftEntity extends TransferEntity {
  @Column('text', { name: 'merchant_gift_id' })
  merchantGiftId: string;
}

const unused = () => {
  throw new Error('not called by the view');
};

const giftKind = defineTransferKind<GiftEntity, Record<string, unknown>>({
  kind: 'payout',
  service: 'gifts',
  noun: 'gift',
  entity: GiftEntity,
  migrations: [],
  merchantIdField: 'merchantGiftId',
  idField: 'giftId',
  topics: { commands: ['gifts.commands'], events: 'gifts.events', replies: ['gateway.replies'] },
  commandTypes: {
    create: 'gift.create',
    get: 'gift.get',
    getByMerchantId: 'gift.get_by_merchant_id',
    listForOperator: 'gift.list_for_operator',
    resolve: 'gift.resolve',
  },
  statusChangedType: 'gift.status_changed',
  dispatch: { idPrefix: 'gift', referenceColumn: 'gift_id' },
  parseCreate: unused,
  parseGet: unused,
  parseGetByMerchantId: unused,
  parseResolve: unused,
  cardsOf: unused,
  view: (g, parts) => ({
    ...parts.head,
    gift: { merchantGiftId: g.merchantGiftId, cost: parts.cost, ...parts.reported },
    ...parts.tail,
  }),
});

function aGift(over: Partial<GiftEntity> = {}): GiftEntity {
  return Object.assign(new GiftEntity(), {
    id: '6b05918b-57c4-4f02-855a-8c17e5f8bd41',
    shopId: '5e6bcc02-cd5f-4aea-a29d-e32a9b3efb3a',
    merchantGiftId: 'g-1',
    provider: 'sandbox',
    status: 'in_progress',
    statusCode: '1-01-04',
    amount: '12.5',
    currency: 'USD',
    tokenStandard: null,
    description: null,
    callbackUrl: null,
    needActionReason: null,
    reportedAmount: null,
    reportedCurrency: null,
    sequence: 2,
    createdAt: new Date('2026-01-01T00:00:00Z'),
    updatedAt: new Date('2026-01-01T00:01:00Z'),
    ...over,
  } satisfies Partial<GiftEntity>);
}

describe('transfer views and events, for any kind', () => {
  it("when a transfer changes status, then its event names it by the kind's id and merchant id fields", () => {
    expect(toTransferStatusChanged(giftKind, aGift(), 'registered')).toEqual({
      giftId: '6b05918b-57c4-4f02-855a-8c17e5f8bd41',
      shopId: '5e6bcc02-cd5f-4aea-a29d-e32a9b3efb3a',
      merchantGiftId: 'g-1',
      sequence: 2,
      status: 'in_progress',
      previousStatus: 'registered',
      statusCode: '1-01-04',
      statusDescription: expect.any(String),
      cost: { amount: '12.50', currency: 'USD' },
    });
  });

  it('when a transfer waits in need_action for a mismatch, then its view shows the reported cost; otherwise not', () => {
    const mismatch = { status: 'need_action' as const, reportedAmount: '10', reportedCurrency: 'USD' };
    expect(toTransferView(giftKind, aGift(mismatch))).toMatchObject({
      gift: { cost: { amount: '12.50', currency: 'USD' }, reportedCost: { amount: '10.00', currency: 'USD' } },
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    expect(toTransferView(giftKind, aGift({ ...mismatch, status: 'completed' }))).not.toHaveProperty(
      'gift.reportedCost',
    );
  });
});
