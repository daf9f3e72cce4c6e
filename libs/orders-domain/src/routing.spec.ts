import type { RouteStep } from '@payments/contracts';
import { cardBrandOf, chooseProvider, fits, RouteFacts, routeErrors, routeMethodOf } from './routing';

const facts = (over: Partial<RouteFacts> = {}): RouteFacts => ({
  instrumentType: 'card',
  brand: 'visa',
  currency: 'USD',
  amount: '100.00',
  ...over,
});

describe('routing rules: which provider an order goes to (decision 321)', () => {
  it('when a card is masked, then its brand comes from the BIN by the card-domain table', () => {
    expect(cardBrandOf('411111******1111')).toBe('visa');
    expect(cardBrandOf('860012******9012')).toBe('uzcard');
    expect(cardBrandOf('986012******9012')).toBe('humo');
    expect(cardBrandOf('555555******4444')).toBe('mastercard');
    expect(cardBrandOf(null)).toBeNull();
    expect(cardBrandOf('999999******9999')).toBeNull();
  });

  it('when an order has a page method, then that is its route; without, its instrument type', () => {
    expect(routeMethodOf({ pageMethod: 'cards', instrumentType: 'card' })).toBe('cards');
    expect(routeMethodOf({ pageMethod: null, instrumentType: 'card' })).toBe('card');
    expect(routeMethodOf({ pageMethod: null, instrumentType: null })).toBeNull();
  });

  it.each<[string, RouteStep['when'], Partial<RouteFacts>, boolean]>([
    ['no condition', undefined, {}, true],
    ['the instrument is listed', { instrumentTypes: ['card'] }, {}, true],
    ['the instrument is not listed', { instrumentTypes: ['wallet'] }, {}, false],
    ['the brand is listed', { brands: ['visa', 'mastercard'] }, {}, true],
    ['the brand is not listed', { brands: ['humo'] }, {}, false],
    ['a brand is asked for and the card is not known', { brands: ['visa'] }, { brand: null }, false],
    ['the currency is listed', { currencies: ['EUR', 'USD'] }, {}, true],
    ['the currency is not listed', { currencies: ['UZS'] }, {}, false],
    ['the amount is the minimum', { minAmount: '100' }, {}, true],
    ['the amount is below the minimum', { minAmount: '100.01' }, {}, false],
    ['the amount is the maximum', { maxAmount: '100.00' }, {}, true],
    ['the amount is above the maximum', { maxAmount: '99.99' }, {}, false],
    ['every condition holds', { brands: ['visa'], currencies: ['USD'], minAmount: '1', maxAmount: '1000' }, {}, true],
    ['one condition of several fails', { brands: ['visa'], currencies: ['EUR'] }, {}, false],
  ])('when %s, then fits is %s', (_case, when, over, expected) => {
    expect(fits(when, facts(over))).toBe(expected);
  });

  const route: RouteStep[] = [
    { provider: 'sandbox', when: { brands: ['mastercard'] } },
    { provider: 'sandbox-b', when: { maxAmount: '500' } },
    { provider: 'payme' },
  ];

  it('when an order has no route, then no choice is made (its method’s provider)', () => {
    expect(chooseProvider(undefined, facts())).toBeUndefined();
    expect(chooseProvider([], facts())).toBeUndefined();
  });

  it('when providers are listed, then the first that fits takes it', () => {
    expect(chooseProvider(route, facts({ brand: 'mastercard' }))).toBe('sandbox');
    expect(chooseProvider(route, facts({ brand: 'visa' }))).toBe('sandbox-b');
    expect(chooseProvider(route, facts({ brand: 'visa', amount: '600' }))).toBe('payme');
  });

  it('when providers were tried already, then the next fitting one that was not; none left is null', () => {
    expect(chooseProvider(route, facts({ brand: 'mastercard' }), new Set(['sandbox']))).toBe('sandbox-b');
    expect(chooseProvider(route, facts({ brand: 'mastercard', amount: '600' }), new Set(['sandbox']))).toBe('payme');
    expect(chooseProvider(route, facts(), new Set(['sandbox-b', 'payme']))).toBeNull();
  });
});

describe('routing rules: what operators may set (decision 320)', () => {
  const paths = (steps: RouteStep[], method = {}) => routeErrors(steps, method).map((e) => e.path);

  it('when every provider is registered, sends to and covers the method, then there are no errors', () => {
    expect(
      routeErrors(
        [
          { provider: 'sandbox', when: { brands: ['visa'], currencies: ['USD'], minAmount: '1', maxAmount: '10' } },
          { provider: 'sandbox-b' },
        ],
        { instrumentType: 'card', currencies: ['USD'] },
      ),
    ).toEqual([]);
  });

  it('when a provider is not registered, then the error names the field and the codes there are', () => {
    expect(routeErrors([{ provider: 'sandbox' }, { provider: 'acme' }])).toEqual([
      {
        path: 'providers[1].provider',
        message: expect.stringMatching(/unknown provider "acme"; registered: sandbox, sandbox-b/),
      },
    ]);
  });

  it('when a provider is only paid from its app or listed twice, then it is refused', () => {
    expect(paths([{ provider: 'click' }])).toEqual(['providers[0].provider']);
    expect(paths([{ provider: 'sandbox' }, { provider: 'sandbox' }])).toEqual(['providers[1].provider']);
  });

  it('when a provider does not cover the method’s instrument or currencies, then the provider is named', () => {
    // Payme takes wallet payments in UZS only.
    expect(paths([{ provider: 'payme' }], { instrumentType: 'card' })).toContain('providers[0].provider');
  });

  it('when the conditions name what the provider does not take, then the condition is named', () => {
    expect(paths([{ provider: 'sandbox', when: { currencies: ['XYZ1'] } }])).toEqual(['providers[0].when.currencies']);
    expect(paths([{ provider: 'sandbox', when: { brands: ['visa'] } }], { instrumentType: 'wallet' })).toEqual([
      'providers[0].when.brands',
    ]);
  });

  it('when a range ends before it starts or an amount is not one, then the bound is named', () => {
    expect(paths([{ provider: 'sandbox', when: { minAmount: '10', maxAmount: '9.99' } }])).toEqual([
      'providers[0].when.minAmount',
    ]);
    expect(paths([{ provider: 'sandbox', when: { maxAmount: '0' } }])).toEqual(['providers[0].when.maxAmount']);
  });
});
