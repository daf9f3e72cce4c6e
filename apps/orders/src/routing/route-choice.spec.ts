import { DEFAULT_SHOP_SETTINGS, OrderShopSettings } from '../shop-settings/shop-settings.repository';
import { firstProvider, nextProvider, RoutedOrder } from './route-choice';

const order = (method: string): RoutedOrder => ({
  pageMethod: method,
  instrumentType: null,
  currency: 'USD',
  amount: '10.00',
  cardMasked: '411111******1111',
});
// As the settings statement gives them: a plain object parsed from JSON.
const settings: OrderShopSettings = {
  ...DEFAULT_SHOP_SETTINGS,
  routes: JSON.parse('{"card":[{"provider":"sandbox"},{"provider":"sandbox-b"}]}'),
};

/** Decisions 321-322: only the shop's own routes count, whatever the method code is called. */
describe('route choice by method code', () => {
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'])(
    'when the method is %s (an Object.prototype member) and the shop has no route for it, then the method’s provider, as without a route',
    (method) => {
      expect(firstProvider(settings, order(method), 'sandbox')).toBe('sandbox');
      expect(nextProvider(settings, order(method), new Set(['sandbox']))).toBeNull();
    },
  );

  it('when a shop has a route for a method coded __proto__, then that route is used, not the prototype', () => {
    const odd: OrderShopSettings = {
      ...DEFAULT_SHOP_SETTINGS,
      routes: JSON.parse('{"__proto__":[{"provider":"sandbox-b"}]}'),
    };
    expect(firstProvider(odd, order('__proto__'), 'sandbox')).toBe('sandbox-b');
  });

  it('when the method has a route, then it is used', () => {
    expect(firstProvider(settings, order('card'), 'click')).toBe('sandbox');
    expect(nextProvider(settings, order('card'), new Set(['sandbox']))).toBe('sandbox-b');
  });
});
