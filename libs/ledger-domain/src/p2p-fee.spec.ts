import { MoneyDecimal } from '@payments/money';
import { accountKey, checkPostings, ledgerCurrency, LedgerCurrency, NO_FEE, planP2pFee, Posting } from './index';

const d = (v: string) => new MoneyDecimal(v);
const cur = (code: string, token?: string): LedgerCurrency => {
  const c = ledgerCurrency(code, token);
  if (c.kind !== 'ok') throw new Error(c.reason);
  return c.currency;
};
const USD = cur('USD');
const USDT_TRC20 = cur('USDT', 'TRC20');
const SHOP = '22222222-2222-4222-8222-222222222222';
const view = (ps: Posting[]) => Object.fromEntries(ps.map((p) => [accountKey(p.account), p.amount.toFixed()]));
const schedule = (percent: string, fixed = '0', minimum = '0') => ({
  percent: d(percent),
  fixed: d(fixed),
  minimum: d(minimum),
});

describe('a completed P2P transaction: its fee, and only its fee', () => {
  it.each([
    // available covers the fee: 1.5 % of 200.00 + 0.50 = 3.50
    ['200.00', '10.00', USD, schedule('1.5', '0.50'), '3.5', '3.5', '0'],
    // available covers part: the rest is the shop's debt
    ['200.00', '1.20', USD, schedule('1.5', '0.50'), '3.5', '1.2', '2.3'],
    // nothing available: all of it owed
    ['200.00', '0', USD, schedule('1.5', '0.50'), '3.5', '0', '3.5'],
    // half up to the scale: 0.333 % of 100.000001 = 0.33300000333 -> 0.333000 USDT-TRC20
    ['100.000001', '5', USDT_TRC20, schedule('0.333'), '0.333', '0.333', '0'],
  ])(
    'when %s is sent with %s available, then the fee is taken from available, the rest owed, and fee revenue gets all of it',
    (gross, available, currency, fee, charged, fromAvailable, owed) => {
      const plan = planP2pFee({ shopId: SHOP, gross: d(gross), currency, fee, available: d(available) });
      if (plan.kind !== 'charged') throw new Error(plan.kind);
      expect([plan.fee.toFixed(), plan.fromAvailable.toFixed(), plan.owed.toFixed()]).toEqual([
        charged,
        fromAvailable,
        owed,
      ]);
      const expected: Record<string, string> = { [`fee_revenue:${currency.code}`]: charged };
      if (d(fromAvailable).greaterThan(0))
        expected[`shop:${SHOP}:available:${currency.code}`] = d(fromAvailable).negated().toFixed();
      if (d(owed).greaterThan(0)) expected[`shop:${SHOP}:receivable:${currency.code}`] = d(owed).negated().toFixed();
      expect(view(plan.postings)).toEqual(expected);
      expect(checkPostings(plan.postings, new Map([[currency.code, currency]]))).toEqual({ kind: 'ok' });
    },
  );

  it('when the shop has no fee line, then nothing is posted', () => {
    expect(planP2pFee({ shopId: SHOP, gross: d('50'), currency: USD, fee: NO_FEE, available: d('9') })).toEqual({
      kind: 'none',
    });
  });

  it('when the fee would exceed the amount, then it is refused naming fee', () => {
    expect(
      planP2pFee({ shopId: SHOP, gross: d('0.50'), currency: USD, fee: schedule('0', '1'), available: d('9') }),
    ).toMatchObject({ kind: 'rejected', field: 'fee' });
  });
});
