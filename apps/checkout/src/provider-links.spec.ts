import type { CheckoutOrderView } from '@payments/contracts';
import { providerLinksFor } from './provider-links';

const urls = { clickPayUrl: 'http://click.test', paymeCheckoutUrl: 'http://payme.test' };
const view = (over: Partial<CheckoutOrderView> = {}): CheckoutOrderView => ({
  orderId: '0a8c0f4e-6b1d-4f7e-9a3c-2d5e8b1c7f90',
  shopId: '00000000-0000-4000-8000-000000000001',
  merchantOrderId: 'm-1',
  status: 'registered',
  amount: '125000.00',
  currency: 'UZS',
  expiresAt: '2026-11-28T03:00:00.000Z',
  linkStatus: 'live',
  ...over,
});

/** The "Pay with" buttons come from the public ids orders' view carries (decision 342), not from configuration. */
describe('the app providers of a hosted page', () => {
  it('when the view carries no provider ids, then there is no button', () => {
    expect(providerLinksFor(view(), urls)).toEqual([]);
  });

  it("when the view carries the shop's Click and Payme ids, then Click then Payme, each link built from them", () => {
    const links = providerLinksFor(
      view({
        providerIds: { payme: { merchantId: '6a1c2e3f4b5d6e7f8a9b0c1d' }, click: { serviceId: '7', merchantId: '3' } },
      }),
      urls,
    );
    expect(links.map((l) => l.code)).toEqual(['click', 'payme']);
    expect(links[0].href).toBe(
      'http://click.test/services/pay?service_id=7&merchant_id=3&amount=125000.00&transaction_param=0a8c0f4e-6b1d-4f7e-9a3c-2d5e8b1c7f90',
    );
    expect(links[1].href.startsWith('http://payme.test/')).toBe(true);
  });

  it('when the ids are not what the provider validates, or the order is not in sums, then no button', () => {
    expect(providerLinksFor(view({ providerIds: { click: { serviceId: 'x', merchantId: '3' } } }), urls)).toEqual([]);
    expect(
      providerLinksFor(view({ currency: 'USD', providerIds: { click: { serviceId: '7', merchantId: '3' } } }), urls),
    ).toEqual([]);
  });
});
