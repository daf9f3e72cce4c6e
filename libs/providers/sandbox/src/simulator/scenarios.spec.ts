import { scenarioOf } from './scenarios';

describe('sandbox scenarios, chosen by the cents of the amount', () => {
  it.each([
    ['100.00', 'success'],
    ['100', 'success'],
    ['0.5', 'success'],
    ['1000', 'success'],
    ['12.34', 'success'],
    ['42.13', 'decline'],
    ['42.130', 'decline'],
    ['100.21', 'amount_mismatch'],
    ['100.22', 'currency_mismatch'],
    ['12.31', 'slow'],
    ['7.41', 'duplicate_callbacks'],
    ['8.42', 'stale_pending'],
    ['10.99', 'no_callback'],
    ['0.99000001', 'no_callback'],
  ])('when the amount is %s, then the scenario is %s', (amount, name) => {
    expect(scenarioOf(amount).name).toBe(name);
  });

  it.each([
    ['100.00', 'USD', [{ status: 'success', amount: '100.00', currency: 'USD' }]],
    ['42.13', 'USD', [{ status: 'failed', amount: '42.13', currency: 'USD', reason: expect.any(String) }]],
    ['100.21', 'USD', [{ status: 'success', amount: '90.18', currency: 'USD' }]],
    ['0.21', 'USDT', [{ status: 'success', amount: '0.18', currency: 'USDT' }]],
    ['100.22', 'USD', [{ status: 'success', amount: '100.22', currency: 'EUR' }]],
    ['100.22', 'EUR', [{ status: 'success', amount: '100.22', currency: 'USD' }]],
    [
      '7.41',
      'USD',
      [
        { status: 'success', amount: '7.41', currency: 'USD' },
        { status: 'success', amount: '7.41', currency: 'USD', repeatOf: 0 },
        { status: 'success', amount: '7.41', currency: 'USD' },
      ],
    ],
    [
      '8.42',
      'USD',
      [
        { status: 'success', amount: '8.42', currency: 'USD' },
        { status: 'pending', amount: '8.42', currency: 'USD' },
      ],
    ],
    ['10.99', 'USD', []],
  ])('when %s %s is paid, then the callbacks are as planned', (amount, currency, expected) => {
    expect(scenarioOf(amount).callbacks({ amount, currency })).toEqual(expected);
  });

  it('when a token amount is paid in the default scenario, then its token standard is reported back', () => {
    expect(scenarioOf('25.5').callbacks({ amount: '25.5', currency: 'USDT', tokenStandard: 'TRC20' })).toEqual([
      { status: 'success', amount: '25.5', currency: 'USDT', tokenStandard: 'TRC20' },
    ]);
  });
});
