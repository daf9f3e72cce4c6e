import type { MethodCurrency } from '@payments/contracts';
import { methodFits } from './method-fit';

const method = (currencies: MethodCurrency[], enabled = true) => ({ enabled, currencies });

describe('methodFits: which methods fit a payment or payout', () => {
  it.each([
    ['the currency, no limits', [{ currency: 'UZS' }], { currency: 'UZS', amount: '1' }, true],
    ['another currency', [{ currency: 'UZS' }], { currency: 'USD', amount: '1' }, false],
    ['at the minimum', [{ currency: 'USD', minAmount: '1.00' }], { currency: 'USD', amount: '1' }, true],
    ['below the minimum', [{ currency: 'USD', minAmount: '1.00' }], { currency: 'USD', amount: '0.99' }, false],
    ['at the maximum', [{ currency: 'USD', maxAmount: '10' }], { currency: 'USD', amount: '10.00' }, true],
    ['above the maximum', [{ currency: 'USD', maxAmount: '10' }], { currency: 'USD', amount: '10.01' }, false],
    [
      'the token standard offered',
      [{ currency: 'USDT', tokenStandard: 'TRC20' }],
      { currency: 'USDT', tokenStandard: 'TRC20', amount: '5' },
      true,
    ],
    [
      'another token standard',
      [{ currency: 'USDT', tokenStandard: 'TRC20' }],
      { currency: 'USDT', tokenStandard: 'ERC20', amount: '5' },
      false,
    ],
    [
      'no token standard where the method names one',
      [{ currency: 'USDT', tokenStandard: 'TRC20' }],
      { currency: 'USDT', amount: '5' },
      false,
    ],
    [
      'the asset code for the same token (USDT_TRON is USDT with TRC20)',
      [{ currency: 'USDT', tokenStandard: 'TRC20' }],
      { currency: 'USDT_TRON', amount: '5' },
      true,
    ],
    [
      'limits in the token standard offered',
      [{ currency: 'USDT', tokenStandard: 'TRC20', minAmount: '10' }],
      { currency: 'USDT', tokenStandard: 'TRC20', amount: '9.5' },
      false,
    ],
  ] as [string, MethodCurrency[], { currency: string; tokenStandard?: string; amount: string }, boolean][])(
    'when a method offers %s, then it fits: %s',
    (_name, currencies, terms, fits) => {
      expect(methodFits(method(currencies), terms)).toBe(fits);
    },
  );

  it('when the method is disabled, then it fits nothing', () => {
    expect(methodFits(method([{ currency: 'UZS' }], false), { currency: 'UZS', amount: '1' })).toBe(false);
  });
});
