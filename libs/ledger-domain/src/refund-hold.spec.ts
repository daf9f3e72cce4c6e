import { amountOf } from '@payments/money';
import { accountKey } from './accounts';
import { LedgerCurrency } from './ledger-currency';
import { HeldRefund, planRefundHold, postRefundHold, voidRefundHold } from './refund-hold';

const USD: LedgerCurrency = { code: 'USD', scale: 2 };
const USDT: LedgerCurrency = { code: 'USDT-TRC20', scale: 6 };
const shop = '0b1f4a6e-2c3d-4e5f-8a9b-0c1d2e3f4a5b';
const byKey = (ps: { account: Parameters<typeof accountKey>[0]; amount: { toFixed(): string } }[]) =>
  Object.fromEntries(ps.map((p) => [accountKey(p.account), p.amount.toFixed()]));

describe('a refund hold (decision 276)', () => {
  const input = {
    shopId: shop,
    orderCurrency: USD,
    creditCurrency: USDT,
    rate: amountOf('0.998'),
    source: 'available' as const,
  };

  it('when the available balance covers the debit at the original rate, then it moves to reserved', () => {
    const plan = planRefundHold({ ...input, amount: amountOf('10.00'), balance: amountOf('9.98') });
    expect(plan.kind).toBe('held');
    if (plan.kind !== 'held') return;
    expect(plan.debit.toFixed()).toBe('9.98');
    expect(byKey(plan.postings)).toEqual({
      [`shop:${shop}:available:USDT-TRC20`]: '-9.98',
      [`shop:${shop}:reserved:USDT-TRC20`]: '9.98',
    });
  });

  it('when the debit exceeds the available balance by one minor unit, then it is insufficient and posts nothing', () => {
    const plan = planRefundHold({ ...input, amount: amountOf('10.00'), balance: amountOf('9.979999') });
    expect(plan).toMatchObject({ kind: 'insufficient' });
  });

  it('when a zero refund is asked, then it is rejected naming the amount', () => {
    expect(planRefundHold({ ...input, amount: amountOf('0'), balance: amountOf('1') })).toMatchObject({
      kind: 'rejected',
      field: 'amount',
    });
  });

  it('when the hold is posted or voided, then each currency sums to zero and reserved goes back to zero', () => {
    const h: HeldRefund = {
      shopId: shop,
      provider: 'sandbox',
      orderCurrency: 'USD',
      amount: amountOf('10.00'),
      creditCurrency: 'USDT-TRC20',
      debit: amountOf('9.98'),
      source: 'available',
    };
    expect(byKey(postRefundHold(h))).toEqual({
      [`shop:${shop}:reserved:USDT-TRC20`]: '-9.98',
      'clearing:sandbox:USD': '10',
      'fx:USD': '-10',
      'fx:USDT-TRC20': '9.98',
    });
    expect(byKey(voidRefundHold(h))).toEqual({
      [`shop:${shop}:reserved:USDT-TRC20`]: '-9.98',
      [`shop:${shop}:available:USDT-TRC20`]: '9.98',
    });
  });
});
