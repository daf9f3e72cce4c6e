import { PayoutEntity } from '../payout.entity';
import { linkIsLive } from '../payout.kind';
import { payoutLinkStatusOf } from './payout-link.handler';

const now = new Date('2026-11-24T12:00:00.000Z');
const later = new Date('2026-11-24T12:30:00.000Z');
const earlier = new Date('2026-11-24T11:59:59.000Z');

function aPayout(over: Partial<PayoutEntity> = {}): PayoutEntity {
  return Object.assign(new PayoutEntity(), {
    status: 'registered',
    linkHash: 'a'.repeat(64),
    linkExpiresAt: later,
    linkUsedAt: null,
    ...over,
  });
}

describe('a payout link: live, used, expired or closed', () => {
  it.each([
    ['registered, unused, before expiry', {}, 'live', true],
    ['submitted by the recipient', { linkUsedAt: earlier }, 'used', false],
    ['submitted, then sent on', { linkUsedAt: earlier, status: 'in_progress' as const }, 'used', false],
    ['at its expiry instant', { linkExpiresAt: now }, 'expired', false],
    ['after its expiry', { linkExpiresAt: earlier }, 'expired', false],
    ['moved on without a submission (an operator)', { status: 'failed' as const }, 'closed', false],
  ])('when the payout is %s, then its link is %s', (_, over, status, live) => {
    const p = aPayout(over);
    expect(payoutLinkStatusOf(p, now)).toBe(status);
    expect(linkIsLive(p, now)).toBe(live);
  });

  it('when a payout has no link (its payee given by the merchant), then it is never live', () => {
    expect(linkIsLive(aPayout({ linkHash: null, linkExpiresAt: null }), now)).toBe(false);
  });
});
