import type { MethodDefinition } from '@payments/contracts';
import { checkMethodDefinition, resolvePayout, ResolvableMethod } from './method-definition';

const cardMethod: MethodDefinition = {
  code: 'uzcard-payout',
  instrumentType: 'card',
  cardBrands: ['humo', 'uzcard'],
  currencies: [{ currency: 'UZS', minAmount: '1000.00', maxAmount: '5000000.00' }],
  provider: 'sandbox',
  enabled: true,
};

describe('checkMethodDefinition: what operators may configure', () => {
  it.each<[string, MethodDefinition]>([
    ['a humo/uzcard card method with limits', cardMethod],
    [
      'a wallet method with both wallet types',
      {
        code: 'wallets',
        instrumentType: 'wallet',
        walletTypes: ['personal', 'company'],
        currencies: [{ currency: 'UZS' }],
        provider: 'sandbox',
        enabled: true,
      },
    ],
    [
      'a wallet method without wallet types',
      {
        code: 'wallets',
        instrumentType: 'wallet',
        currencies: [{ currency: 'UZS' }],
        provider: 'sandbox',
        enabled: true,
      },
    ],
    [
      'a mobile top-up method',
      {
        code: 'topup',
        instrumentType: 'mobile_top_up',
        currencies: [{ currency: 'UZS' }],
        provider: 'sandbox',
        enabled: true,
      },
    ],
    [
      'a crypto method with a token and an asset code',
      {
        code: 'usdt',
        instrumentType: 'crypto',
        currencies: [
          { currency: 'USDT', tokenStandard: 'TRC20', minAmount: '10', maxAmount: '10000.5' },
          { currency: 'USDT_ETHEREUM' },
        ],
        provider: 'sandbox',
        enabled: true,
      },
    ],
    ['equal min and max', { ...cardMethod, currencies: [{ currency: 'UZS', minAmount: '100', maxAmount: '100' }] }],
  ])('when the definition is %s, then it is accepted', (_what, def) => {
    expect(checkMethodDefinition(def)).toEqual([]);
  });

  it.each<[string, MethodDefinition, string]>([
    ['a code with upper case', { ...cardMethod, code: 'Uzcard' }, 'code'],
    ['a card method without brands', { ...cardMethod, cardBrands: [] }, 'cardBrands'],
    ['brands on a wallet method', { ...cardMethod, instrumentType: 'wallet' }, 'cardBrands'],
    ['wallet types on a card method', { ...cardMethod, walletTypes: ['personal'] }, 'walletTypes'],
    [
      'a repeated wallet type',
      {
        code: 'w1',
        instrumentType: 'wallet',
        walletTypes: ['personal', 'personal'],
        currencies: [{ currency: 'UZS' }],
        provider: 'sandbox',
        enabled: true,
      },
      'walletTypes',
    ],
    ['no currencies', { ...cardMethod, currencies: [] }, 'currencies'],
    ['an unknown currency', { ...cardMethod, currencies: [{ currency: 'XYZ' }] }, 'currencies[0].currency'],
    [
      'a crypto currency on a card method',
      { ...cardMethod, currencies: [{ currency: 'BTC' }] },
      'currencies[0].currency',
    ],
    [
      'a fiat currency on a crypto method',
      { code: 'c1', instrumentType: 'crypto', currencies: [{ currency: 'USD' }], provider: 'sandbox', enabled: true },
      'currencies[0].currency',
    ],
    [
      'a token without its standard',
      { code: 'c1', instrumentType: 'crypto', currencies: [{ currency: 'USDT' }], provider: 'sandbox', enabled: true },
      'currencies[0].tokenStandard',
    ],
    [
      'the same money twice in two forms',
      {
        code: 'c1',
        instrumentType: 'crypto',
        currencies: [{ currency: 'USDT', tokenStandard: 'TRC20' }, { currency: 'USDT_TRON' }],
        provider: 'sandbox',
        enabled: true,
      },
      'currencies[1].currency',
    ],
    [
      'min above max',
      { ...cardMethod, currencies: [{ currency: 'UZS', minAmount: '10', maxAmount: '9.99' }] },
      'currencies[0].minAmount',
    ],
    [
      'a limit beyond the currency scale',
      { ...cardMethod, currencies: [{ currency: 'UZS', maxAmount: '10.001' }] },
      'currencies[0].maxAmount',
    ],
    ['a zero limit', { ...cardMethod, currencies: [{ currency: 'UZS', minAmount: '0' }] }, 'currencies[0].minAmount'],
  ])('when the definition has %s, then it is refused naming %s', (_what, def, path) => {
    expect(checkMethodDefinition(def).map((e) => e.path)).toContain(path);
  });
});

describe('resolvePayout: can this method carry the payout, and what must it carry', () => {
  const wallet: ResolvableMethod = {
    code: 'wallets',
    instrumentType: 'wallet',
    walletTypes: ['personal'],
    currencies: [{ currency: 'UZS' }],
    provider: 'sandbox',
    enabled: true,
  };
  const usdt: ResolvableMethod = {
    code: 'usdt-trc20',
    instrumentType: 'crypto',
    currencies: [{ currency: 'USDT', tokenStandard: 'TRC20', minAmount: '10' }],
    provider: 'sandbox',
    enabled: true,
  };

  it.each<[string, ResolvableMethod, Parameters<typeof resolvePayout>[1], string]>([
    ['an amount within the limits', cardMethod, { currency: 'UZS', amount: '1000' }, 'payee.cardNumber'],
    ['the maximum exactly', cardMethod, { currency: 'UZS', amount: '5000000.00' }, 'payee.cardNumber'],
    ['no amount (fields only)', cardMethod, { currency: 'UZS' }, 'payee.cardNumber'],
    ['an offered wallet type', wallet, { currency: 'UZS', walletType: 'personal', amount: '1' }, 'payee.firstName'],
    ['the asset code of an offered token', usdt, { currency: 'USDT_TRON', amount: '10' }, 'payee.walletAddress'],
  ])('when the payout has %s, then it resolves to fields including %s', (_what, method, terms, path) => {
    const r = resolvePayout(method, terms);
    expect(r.kind).toBe('resolved');
    if (r.kind === 'resolved') expect(r.fields.map((f) => f.path)).toContain(path);
  });

  it.each<[string, ResolvableMethod, Parameters<typeof resolvePayout>[1], string, RegExp]>([
    [
      'a disabled method',
      { ...cardMethod, enabled: false },
      { currency: 'UZS', amount: '1000' },
      'payout.method',
      /disabled/,
    ],
    [
      'a currency not offered',
      cardMethod,
      { currency: 'USD', amount: '1000' },
      'payout.cost.currency',
      /does not offer USD/,
    ],
    [
      'another network of an offered token',
      usdt,
      { currency: 'USDT', tokenStandard: 'ERC20', amount: '10' },
      'payout.cost.currency',
      /ERC20/,
    ],
    [
      'a wallet type not offered',
      wallet,
      { currency: 'UZS', walletType: 'company', amount: '1' },
      'walletType',
      /company/,
    ],
    [
      'a wallet type on a card method',
      cardMethod,
      { currency: 'UZS', walletType: 'personal', amount: '1000' },
      'walletType',
      /only to wallet/,
    ],
    [
      'an amount below the minimum',
      cardMethod,
      { currency: 'UZS', amount: '999.99' },
      'payout.cost.amount',
      /below the minimum/,
    ],
    [
      'an amount above the maximum',
      cardMethod,
      { currency: 'UZS', amount: '5000000.01' },
      'payout.cost.amount',
      /above the maximum/,
    ],
  ])('when the payout has %s, then it is refused naming %s', (_what, method, terms, path, detail) => {
    const r = resolvePayout(method, terms);
    expect(r).toMatchObject({ kind: 'rejected', path });
    if (r.kind === 'rejected') expect(r.detail).toMatch(detail);
  });
});
