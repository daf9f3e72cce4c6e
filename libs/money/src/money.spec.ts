import { ASSET_CODE_ALIASES, CurrencyInfo, findCurrency, formatAmount, parseAmount, sameAmount } from './index';

function currency(code: string): CurrencyInfo {
  const found = findCurrency(code);
  if (found.kind !== 'found') throw new Error(`test setup: ${code} is not in the registry`);
  return found.currency;
}

describe('parseAmount', () => {
  it.each([
    ['1', undefined, '1'],
    ['0.5', undefined, '0.5'],
    ['100.50', 'USD', '100.5'],
    ['100.5', 'USD', '100.5'],
    ['1000', 'JPY', '1000'],
    ['1.234', 'KWD', '1.234'],
    ['0.00000001', 'BTC', '0.00000001'],
    ['21000000.12345678', 'BTC', '21000000.12345678'],
    ['0.000000000000000001', 'ETH', '0.000000000000000001'],
    ['999999999999999999.5', undefined, '999999999999999999.5'],
  ])('when the amount is %p (currency %s), then it is accepted as %s', (raw, code, expected) => {
    const result = parseAmount(raw, code ? currency(code) : undefined);
    expect(result.kind).toBe('ok');
    if (result.kind === 'ok') expect(formatAmount(result.amount)).toBe(expected);
  });

  it.each([
    [1, /decimal string/],
    [0.5, /decimal string/],
    [null, /decimal string/],
    [undefined, /decimal string/],
    [{ amount: '1' }, /decimal string/],
    ['', /plain decimal/],
    [' 1', /plain decimal/],
    ['1 ', /plain decimal/],
    ['+1', /plain decimal/],
    ['-1', /plain decimal/],
    ['1e3', /plain decimal/],
    ['01', /plain decimal/],
    ['00.5', /plain decimal/],
    ['1.', /plain decimal/],
    ['.5', /plain decimal/],
    ['1,5', /plain decimal/],
    ['1.2.3', /plain decimal/],
    ['NaN', /plain decimal/],
    ['Infinity', /plain decimal/],
    ['0x10', /plain decimal/],
    ['0', /greater than zero/],
    ['0.00', /greater than zero/],
    ['1000000000000000000', /too large/],
    ['123456789012345678901234567890.5', /too large/],
  ])('when the amount is %p, then it is rejected (%s)', (raw, reason) => {
    const result = parseAmount(raw);
    expect(result).toEqual({ kind: 'invalid', reason: expect.stringMatching(reason) });
  });

  it.each([
    ['1.001', 'USD', 2],
    ['0.001', 'USD', 2],
    ['1.5', 'JPY', 0],
    ['1000.01', 'JPY', 0],
    ['1.2345', 'KWD', 3],
    ['0.000000001', 'BTC', 8],
    ['1.1234567', 'USDT', 6],
    ['100.500', 'USD', 2],
    ['1.0', 'JPY', 0],
  ])('when %s %s has more decimals than the scale %i, then it is rejected naming the currency', (raw, code, scale) => {
    const result = parseAmount(raw, currency(code));
    expect(result).toEqual({ kind: 'invalid', reason: `has more than ${scale} decimal places allowed for ${code}` });
  });

  it.each([
    ['1.01', 'USD'],
    ['1', 'JPY'],
    ['1.234', 'KWD'],
    ['1.12345678', 'BTC'],
  ])('when %s %s has exactly as many decimals as the scale allows, then it is accepted', (raw, code) => {
    expect(parseAmount(raw, currency(code)).kind).toBe('ok');
  });

  it('when the amount has more decimals than any currency allows but no currency is given, then only the format is checked', () => {
    expect(parseAmount('1.123456789012345678901')).toMatchObject({ kind: 'ok' });
  });
});

describe('findCurrency', () => {
  it.each([
    ['USD', 'fiat', 2],
    ['EUR', 'fiat', 2],
    ['JPY', 'fiat', 0],
    ['KWD', 'fiat', 3],
    ['BTC', 'crypto_native', 8],
    ['ETH', 'crypto_native', 18],
    ['USDT', 'crypto_token', 6],
    ['USDC', 'crypto_token', 6],
    ['USDT_TRON', 'asset', 6],
    ['BTC_BITCOIN', 'asset', 8],
  ])('when the code is %s, then it is found as %s with scale %i and no rename', (code, kind, scale) => {
    const found = findCurrency(code);
    expect(found).toEqual({ kind: 'found', currency: expect.objectContaining({ code, kind, scale }) });
    expect(found).not.toHaveProperty('renamedFrom');
  });

  it('when the code is a token, then it names the standards it exists on', () => {
    expect(findCurrency('USDT')).toMatchObject({
      kind: 'found',
      currency: { tokenStandards: ['TRC20', 'ERC20', 'BEP20'] },
    });
  });

  it.each([
    ['USDT_TRON', 'USDT', 'TRC20'],
    ['USDT_ETHEREUM', 'USDT', 'ERC20'],
    ['USDT_BSC', 'USDT', 'BEP20'],
    ['BTC_BITCOIN', 'BTC', undefined],
  ])('when the code is the asset code %s, then it stands for %s on %s', (code, coin, tokenStandard) => {
    const found = findCurrency(code);
    expect(found.kind).toBe('found');
    if (found.kind === 'found')
      expect(found.currency.asset).toEqual(tokenStandard ? { coin, tokenStandard } : { coin });
  });

  it.each([
    ['USDTTRC', 'USDT_TRON'],
    ['USDTERC', 'USDT_ETHEREUM'],
    ['USDTBEP', 'USDT_BSC'],
    ['USDCERC', 'USDC_ETHEREUM'],
    ['BTC_MAINNET', 'BTC_BITCOIN'],
    ['ETH_MAINNET', 'ETH_ETHEREUM'],
  ])(
    'when the code is the renamed asset code %s, then the current %s is found and the old name is reported',
    (old, current) => {
      expect(findCurrency(old)).toEqual({
        kind: 'found',
        currency: expect.objectContaining({ code: current, kind: 'asset' }),
        renamedFrom: old,
      });
    },
  );

  it('when every alias is followed, then it leads to an asset in the registry', () => {
    for (const [old, current] of Object.entries(ASSET_CODE_ALIASES)) {
      expect(findCurrency(old)).toMatchObject({ kind: 'found', currency: { code: current } });
    }
  });

  it.each(['XYZ', 'usd', 'Usd', '', 'USDT_SOLANA', ' USD', 'USD '])(
    'when the code is %p, then it is unknown',
    (code) => {
      expect(findCurrency(code)).toEqual({ kind: 'unknown', code });
    },
  );
});

describe('formatAmount and sameAmount', () => {
  it.each([
    ['100.50', '100.5'],
    ['100.00', '100'],
    ['1.0', '1'],
    ['0.10', '0.1'],
    ['0.00000001', '0.00000001'],
    ['0.000000000000000001', '0.000000000000000001'],
    ['0.0000000000000000000000000001', '0.0000000000000000000000000001'],
    ['1000000000000000000000', '1000000000000000000000'],
    ['123456789012345678901234567890.123456789012345678', '123456789012345678901234567890.123456789012345678'],
    ['10000000000000000000000000000000000000000.5', '10000000000000000000000000000000000000000.5'],
  ])('when %s is formatted, then it reads %s (plain notation, no trailing zeros)', (raw, expected) => {
    const formatted = formatAmount(raw);
    expect(formatted).toBe(expected);
    expect(formatted).not.toMatch(/e/i);
  });

  it('when a parsed amount is formatted, then it is the same string as formatting its text', () => {
    const parsed = parseAmount('250.500');
    expect(parsed.kind).toBe('ok');
    if (parsed.kind === 'ok') expect(formatAmount(parsed.amount)).toBe('250.5');
  });

  it.each([
    ['100.50', '100.5', true],
    ['100', '100.000', true],
    ['0.1', '0.10', true],
    ['100.5', '100.51', false],
    ['0.000000000000000001', '0.000000000000000002', false],
    ['123456789012345678901234567890.000000000000000001', '123456789012345678901234567890', false],
  ])('when %s is compared with %s, then sameAmount is %p', (a, b, same) => {
    expect(sameAmount(a, b)).toBe(same);
    expect(sameAmount(b, a)).toBe(same);
  });
});
