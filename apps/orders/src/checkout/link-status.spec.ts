import { OrderEntity } from '../order.entity';
import { linkStatusOf } from '../order-view';

const now = new Date('2026-06-09T10:00:00.000Z');
const anOrder = (over: Partial<OrderEntity>): OrderEntity =>
  Object.assign(new OrderEntity(), {
    status: 'registered',
    linkHash: 'a'.repeat(64),
    linkExpiresAt: new Date('2026-06-09T10:30:00.000Z'),
    linkUsedAt: null,
    ...over,
  });

describe('the link of a hosted order: live until paid, expired or closed', () => {
  it.each<[string, Partial<OrderEntity>, string | undefined]>([
    ['a registered order before its expiry', {}, 'live'],
    ['a registered order one millisecond before its expiry', { linkExpiresAt: new Date(now.getTime() + 1) }, 'live'],
    ['a registered order at its expiry', { linkExpiresAt: now }, 'expired'],
    ['a registered order after its expiry', { linkExpiresAt: new Date(now.getTime() - 1000) }, 'expired'],
    ['an order whose payment was submitted', { linkUsedAt: now, status: 'in_progress' }, 'used'],
    ['an order submitted in time, asked after its expiry', { linkUsedAt: now, linkExpiresAt: new Date(0) }, 'used'],
    ['an order cancelled before payment', { status: 'cancelled' }, 'closed'],
    ['an order failed by the expiry sweep', { status: 'failed', linkExpiresAt: new Date(0) }, 'closed'],
    ['a host-to-host order', { linkHash: null, linkExpiresAt: null }, undefined],
  ])('when it is %s, then the link is %s', (_what, over, expected) => {
    expect(linkStatusOf(anOrder(over), now)).toBe(expected);
  });
});
