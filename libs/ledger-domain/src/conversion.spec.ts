import { amountOf } from '@payments/money';
import { accountKey } from './accounts';
import { planConversion } from './conversion';
import { LedgerCurrency } from './ledger-currency';
import { checkPostings } from './postings';

const EUR: LedgerCurrency = { code: 'EUR', scale: 2 };
const USDT: LedgerCurrency = { code: 'USDT-TRC20', scale: 6 };
const shop = '0b1f4a6e-2c3d-4e5f-8a9b-0c1d2e3f4a5b';
const rate = { rate: amountOf('1.0771234567'), source: 'operator:ops-1', validFrom: new Date('2026-11-27T00:00:00Z') };

describe('a credit converted out of suspense (decision 304)', () => {
  it('when a rate exists, then what is left in suspense goes through FX to pending, rounded down to the minor unit', () => {
    const plan = planConversion({
      shopId: shop,
      left: amountOf('10.01'),
      orderCurrency: EUR,
      balanceCurrency: USDT,
      rate,
    });
    expect(plan.kind).toBe('convert');
    if (plan.kind !== 'convert') return;
    // 10.01 × 1.0771234567 = 10.782005801567: the shop gets 10.782005, never the fraction of a minor unit.
    expect(plan.credited.toFixed()).toBe('10.782005');
    expect(Object.fromEntries(plan.postings.map((p) => [accountKey(p.account), p.amount.toFixed()]))).toEqual({
      [`shop:${shop}:suspense:EUR`]: '-10.01',
      'fx:EUR': '10.01',
      'fx:USDT-TRC20': '-10.782005',
      [`shop:${shop}:pending:USDT-TRC20`]: '10.782005',
    });
    expect(checkPostings(plan.postings, new Map([EUR, USDT].map((c) => [c.code, c])))).toEqual({ kind: 'ok' });
    expect(plan.rate).toBe(rate);
  });

  it('when nothing is left in suspense (refunded meanwhile), then nothing posts', () => {
    expect(
      planConversion({ shopId: shop, left: amountOf('0'), orderCurrency: EUR, balanceCurrency: USDT, rate }),
    ).toEqual({ kind: 'nothing' });
  });
});
