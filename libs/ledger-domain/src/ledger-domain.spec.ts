import { MoneyDecimal } from '@payments/money';
import {
  holdKey,
  accountKey,
  checkPostings,
  computeFee,
  FeeSchedule,
  LedgerCurrency,
  ledgerCurrency,
  NO_FEE,
  planCompletion,
  planHold,
  planRefund,
  planSettlement,
  postHold,
  postVoidedHold,
  Posting,
  voidHold,
} from './index';

const d = (v: string) => new MoneyDecimal(v);
const cur = (code: string, token?: string): LedgerCurrency => {
  const c = ledgerCurrency(code, token);
  if (c.kind !== 'ok') throw new Error(c.reason);
  return c.currency;
};
const USD = cur('USD');
const UZS = cur('UZS');
const USDT_TRC20 = cur('USDT', 'TRC20');
const scales = new Map([USD, UZS, USDT_TRC20, cur('BTC')].map((c) => [c.code, c]));
const fee = (percent: string, fixed = '0', minimum = '0'): FeeSchedule => ({
  percent: d(percent),
  fixed: d(fixed),
  minimum: d(minimum),
});
const SHOP = '11111111-1111-4111-8111-111111111111';
const view = (ps: Posting[]) => Object.fromEntries(ps.map((p) => [accountKey(p.account), p.amount.toFixed()]));

describe('ledger currencies', () => {
  it.each([
    ['USD', undefined, 'USD', 2],
    ['USDT', 'TRC20', 'USDT-TRC20', 6],
    ['USDT', 'ERC20', 'USDT-ERC20', 6],
    ['USDT_TRON', undefined, 'USDT-TRC20', 6],
    ['BTC', undefined, 'BTC', 8],
  ])('when %s %s, then the books keep %s at scale %d', (code, token, expected, scale) => {
    expect(cur(code, token)).toEqual({ code: expected, scale });
  });

  it('when the currency is unknown or a token lacks its standard, then it is refused with the reason', () => {
    expect(ledgerCurrency('XYZ')).toEqual({ kind: 'invalid', reason: 'currency XYZ is not in the currency registry' });
    expect(ledgerCurrency('USDT')).toMatchObject({
      kind: 'invalid',
      reason: expect.stringContaining('token standards'),
    });
  });
});

describe('fees', () => {
  it.each([
    ['100.00', NO_FEE, '0', '100'],
    ['100.00', fee('2.5'), '2.5', '97.5'],
    ['100.00', fee('1', '0.30'), '1.3', '98.7'],
    ['10.00', fee('1', '0', '0.50'), '0.5', '9.5'],
    ['0.33', fee('1.5'), '0', '0.33'], // 0.00495 rounds half up to 0.00 at scale 2
    ['0.34', fee('1.5'), '0.01', '0.33'], // 0.0051 -> 0.01
    ['0.50', fee('0', '0', '0.50'), '0.5', '0'],
  ])('when %s USD with %o, then the fee is %s and the net %s', (gross, schedule, f, net) => {
    const r = computeFee(d(gross), schedule, USD);
    expect(r).toMatchObject({ kind: 'ok' });
    if (r.kind !== 'ok') return;
    expect([r.fee.toFixed(), r.net.toFixed()]).toEqual([f, net]);
  });

  it('when the fee would exceed the amount, then it is refused naming the fee', () => {
    expect(computeFee(d('0.40'), fee('0', '0', '0.50'), USD)).toEqual({
      kind: 'rejected',
      field: 'fee',
      reason: 'the fee 0.5 USD exceeds the amount 0.4 USD',
    });
  });
});

describe('postings', () => {
  it('when postings do not sum to zero in a currency, then the check says which and by how much', () => {
    const ps: Posting[] = [
      { account: { owner: 'fee_revenue', currency: 'USD' }, amount: d('1') },
      { account: { owner: 'fx', currency: 'USD' }, amount: d('-0.99') },
    ];
    expect(checkPostings(ps, scales)).toEqual({ kind: 'unbalanced', reason: 'postings in USD sum to 0.01, not zero' });
  });

  it('when an amount has more decimals than its currency, then the check refuses it', () => {
    const ps: Posting[] = [
      { account: { owner: 'fee_revenue', currency: 'USD' }, amount: d('0.001') },
      { account: { owner: 'fx', currency: 'USD' }, amount: d('-0.001') },
    ];
    expect(checkPostings(ps, scales)).toMatchObject({
      kind: 'unbalanced',
      reason: expect.stringContaining('2 decimals'),
    });
  });
});

describe('an order completed', () => {
  it('when the balance is in the order currency, then clearing pays gross = fee + net to the shop pending', () => {
    const plan = planCompletion({
      shopId: SHOP,
      provider: 'sandbox',
      gross: d('100.00'),
      orderCurrency: USD,
      balanceCurrency: USD,
      fee: fee('2'),
      rate: null,
    });
    expect(plan.kind).toBe('credit');
    if (plan.kind !== 'credit') return;
    expect(view(plan.postings)).toEqual({
      'clearing:sandbox:USD': '-100',
      'fee_revenue:USD': '2',
      [`shop:${SHOP}:pending:USD`]: '98',
    });
    expect(checkPostings(plan.postings, scales)).toEqual({ kind: 'ok' });
  });

  it('when the balance is USDT TRC20 and a rate is in force, then the net converts through FX, rounded down to 6 places', () => {
    const rate = { rate: d('0.0000787'), source: 'manual', validFrom: new Date('2026-11-27T00:00:00Z') };
    const plan = planCompletion({
      shopId: SHOP,
      provider: 'sandbox',
      gross: d('1000000.00'),
      orderCurrency: UZS,
      balanceCurrency: USDT_TRC20,
      fee: fee('1.5'),
      rate,
    });
    expect(plan).toMatchObject({ kind: 'credit', rate });
    if (plan.kind !== 'credit') return;
    // net 985000 UZS * 0.0000787 = 77.5195 USDT
    expect(view(plan.postings)).toEqual({
      'clearing:sandbox:UZS': '-1000000',
      'fee_revenue:UZS': '15000',
      'fx:UZS': '985000',
      'fx:USDT-TRC20': '-77.5195',
      [`shop:${SHOP}:pending:USDT-TRC20`]: '77.5195',
    });
    expect(checkPostings(plan.postings, scales)).toEqual({ kind: 'ok' });
  });

  it('when no rate is in force, then the net waits in suspense in the order currency', () => {
    const plan = planCompletion({
      shopId: SHOP,
      provider: 'sandbox',
      gross: d('50.00'),
      orderCurrency: USD,
      balanceCurrency: USDT_TRC20,
      fee: NO_FEE,
      rate: null,
    });
    expect(plan.kind).toBe('awaiting_rate');
    expect(view(plan.kind === 'awaiting_rate' ? plan.postings : [])).toEqual({
      'clearing:sandbox:USD': '-50',
      [`shop:${SHOP}:suspense:USD`]: '50',
    });
  });

  it('when the fee exceeds the amount, then nothing is planned and the reason names the fee', () => {
    const plan = planCompletion({
      shopId: SHOP,
      provider: 'p',
      gross: d('1.00'),
      orderCurrency: USD,
      balanceCurrency: USD,
      fee: fee('0', '2'),
      rate: null,
    });
    expect(plan).toMatchObject({ kind: 'rejected', field: 'fee' });
  });
});

describe('a refund', () => {
  const base = {
    shopId: SHOP,
    provider: 'sandbox',
    orderCurrency: USD,
    creditCurrency: USD,
    rate: null,
    inSuspense: false,
  };
  it('when pending covers part, then the rest comes from available', () => {
    const plan = planRefund({ ...base, amount: d('30'), balances: { pending: d('10'), available: d('50') } });
    expect(plan).toMatchObject({ kind: 'debit' });
    if (plan.kind !== 'debit') return;
    expect(view(plan.postings)).toEqual({
      'clearing:sandbox:USD': '30',
      [`shop:${SHOP}:pending:USD`]: '-10',
      [`shop:${SHOP}:available:USD`]: '-20',
    });
    expect(plan.shortfall.toFixed()).toBe('0');
    expect(checkPostings(plan.postings, scales)).toEqual({ kind: 'ok' });
  });

  it('when the balance cannot cover it, then the shortfall is the shop debt, never a negative balance', () => {
    const plan = planRefund({ ...base, amount: d('30'), balances: { available: d('5') } });
    if (plan.kind !== 'debit') throw new Error('expected a debit');
    expect(view(plan.postings)).toEqual({
      'clearing:sandbox:USD': '30',
      [`shop:${SHOP}:available:USD`]: '-5',
      [`shop:${SHOP}:receivable:USD`]: '-25',
    });
  });

  it('when the order was converted, then the refund converts at the original rate', () => {
    const plan = planRefund({
      ...base,
      amount: d('10.00'),
      creditCurrency: USDT_TRC20,
      rate: d('0.998'),
      balances: { pending: d('100') },
    });
    if (plan.kind !== 'debit') throw new Error('expected a debit');
    expect(view(plan.postings)).toEqual({
      'clearing:sandbox:USD': '10',
      'fx:USD': '-10',
      'fx:USDT-TRC20': '9.98',
      [`shop:${SHOP}:pending:USDT-TRC20`]: '-9.98',
    });
    expect(checkPostings(plan.postings, scales)).toEqual({ kind: 'ok' });
  });
});

describe('settlement and holds', () => {
  it('when a refund took part of pending, then settlement moves only what is left', () => {
    const plan = planSettlement(SHOP, 'USD', d('98'), d('60'));
    expect(plan).toMatchObject({ kind: 'settle' });
    expect(plan.kind === 'settle' && plan.amount.toFixed()).toBe('60');
    expect(planSettlement(SHOP, 'USD', d('98'), d('0'))).toEqual({ kind: 'nothing' });
  });

  it.each([
    // credited, pending, receivable -> to receivable (repaid), to available
    ['100', '100', '-30', '30', '70'],
    ['20', '20', '-30', '20', '0'],
    ['30', '30', '-30', '30', '0'],
    ['100', '100', '0', '0', '100'],
    ['98', '60', '-10.05', '10.05', '49.95'], // a refund took 38 of the credit meanwhile
  ])(
    'when a credit of %s settles with %s pending and the receivable at %s, then %s repays what is owed and %s goes to available (decision 348)',
    (credited, pending, receivable, repaid, available) => {
      const plan = planSettlement(SHOP, 'USD', d(credited), d(pending), d(receivable));
      if (plan.kind !== 'settle') throw new Error('expected a settlement');
      expect(plan.repaid.toFixed()).toBe(repaid);
      expect(checkPostings(plan.postings, scales)).toEqual({ kind: 'ok' });
      const settled = d(credited).lessThan(d(pending)) ? credited : pending;
      const expected: Record<string, string> = { [`shop:${SHOP}:pending:USD`]: d(settled).negated().toFixed() };
      if (d(repaid).greaterThan(0)) expected[`shop:${SHOP}:receivable:USD`] = repaid;
      if (d(available).greaterThan(0)) expected[`shop:${SHOP}:available:USD`] = available;
      expect(view(plan.postings)).toEqual(expected);
    },
  );

  it.each([
    ['10', '0', '10', 'held'],
    ['10', '0', '9.99', 'insufficient'],
    ['9', '1', '10', 'held'], // 9 + fee 1 = 10
    ['9.01', '1', '10', 'insufficient'],
  ])('when a payout of %s with fixed fee %s meets available %s, then it is %s', (amount, fixed, available, kind) => {
    expect(
      planHold({ shopId: SHOP, amount: d(amount), currency: USD, fee: fee('0', fixed), available: d(available) }).kind,
    ).toBe(kind);
  });

  it('when a hold is posted or voided, then reserved goes to zero and the postings balance', () => {
    const h = { shopId: SHOP, provider: 'sandbox', currency: 'USD', amount: d('9'), fee: d('1') };
    expect(checkPostings(postHold(h), scales)).toEqual({ kind: 'ok' });
    expect(checkPostings(voidHold(h), scales)).toEqual({ kind: 'ok' });
    expect(view(voidHold(h))).toEqual({ [`shop:${SHOP}:reserved:USD`]: '-10', [`shop:${SHOP}:available:USD`]: '10' });
  });

  it.each([
    ['25', { available: '-10', receivable: undefined, owed: '0' }],
    ['4', { available: '-4', receivable: '-6', owed: '6' }],
    ['0', { available: undefined, receivable: '-10', owed: '10' }],
    ['-3', { available: undefined, receivable: '-10', owed: '10' }],
  ])(
    'when a payout completes after its hold was voided and available is %s, then it leaves from available and the rest is owed',
    (available, want) => {
      const h = { shopId: SHOP, provider: 'sandbox', currency: 'USD', amount: d('9'), fee: d('1') };
      const late = postVoidedHold(h, d(available));
      expect(checkPostings(late.postings, scales)).toEqual({ kind: 'ok' });
      const v = view(late.postings);
      expect({
        available: v[`shop:${SHOP}:available:USD`],
        receivable: v[`shop:${SHOP}:receivable:USD`],
        owed: late.owed.toFixed(),
        clearing: v['clearing:sandbox:USD'],
        fee: v['fee_revenue:USD'],
      }).toEqual({ ...want, clearing: '9', fee: '1' });
    },
  );

  it('when a payout without a fee completes after its void, then no fee revenue is posted', () => {
    const h = { shopId: SHOP, provider: 'sandbox', currency: 'USD', amount: d('9'), fee: d('0') };
    expect(view(postVoidedHold(h, d('20')).postings)).toEqual({
      [`shop:${SHOP}:available:USD`]: '-9',
      'clearing:sandbox:USD': '9',
    });
  });
});

describe('hold keys (decision 355)', () => {
  it("when a hold is its row's first generation, then its keys are the ones holds always had; a later one's carry its number", () => {
    expect(holdKey('payout', 'p1', 'reserved', 1)).toBe('payout:p1:reserved');
    expect(holdKey('refund', 'r1', 'posted', 1)).toBe('refund:r1:posted');
    expect(holdKey('payout', 'p1', 'voided', 2)).toBe('payout:p1:voided:2');
    expect(holdKey('refund', 'r1', 'reserved', 3)).toBe('refund:r1:reserved:3');
  });
});
