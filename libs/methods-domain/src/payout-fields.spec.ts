import type { PayoutFieldSpec } from '@payments/contracts';
import { DOCUMENTED_TEST_CARDS, groupedAsPrinted } from '@payments/testing';
import { checkPayee, NO_CARD_NUMBER } from './check-payee';
import { PayoutFieldsInput, requiredPayoutFields } from './payout-fields';

const paths = (fields: PayoutFieldSpec[]) => fields.map((f) => `${f.path}${f.required ? '' : '?'}:${f.format}`);

describe('requiredPayoutFields: what a payout of a method must say about its payee', () => {
  it.each<[string, PayoutFieldsInput, string[]]>([
    [
      'a card method of international brands',
      { instrumentType: 'card', currency: 'USD', cardBrands: ['visa', 'mastercard'] },
      ['payee.cardNumber:pan', 'payee.cardHolder:card-holder'],
    ],
    [
      'a card method of humo and uzcard',
      { instrumentType: 'card', currency: 'UZS', cardBrands: ['humo', 'uzcard'] },
      ['payee.cardNumber:pan', 'payee.cardHolder:card-holder'],
    ],
    [
      'a wallet without a wallet type',
      { instrumentType: 'wallet', currency: 'UZS' },
      ['payee.walletId:wallet-id', 'payee.walletHolderName?:name'],
    ],
    [
      'a personal wallet',
      { instrumentType: 'wallet', currency: 'UZS', walletType: 'personal' },
      ['payee.walletId:wallet-id', 'payee.firstName:name', 'payee.lastName:name'],
    ],
    [
      'a company wallet',
      { instrumentType: 'wallet', currency: 'UZS', walletType: 'company' },
      ['payee.walletId:wallet-id', 'payee.companyName:company-name', 'payee.taxId:tax-id'],
    ],
    [
      'a bank transfer in USD',
      { instrumentType: 'bank_transfer', currency: 'USD' },
      ['payee.bankCode:bank-code', 'payee.accountNumber:account-number', 'payee.accountName:name'],
    ],
    [
      'a bank transfer in EUR',
      { instrumentType: 'bank_transfer', currency: 'EUR' },
      ['payee.iban:iban', 'payee.bic:bic', 'payee.accountName:name'],
    ],
    [
      'a bank transfer in UZS',
      { instrumentType: 'bank_transfer', currency: 'UZS' },
      ['payee.bankCode:bank-code', 'payee.accountNumber:account-number', 'payee.accountName:name'],
    ],
    ['a mobile top-up', { instrumentType: 'mobile_top_up', currency: 'UZS' }, ['payee.phone:e164']],
    [
      'USDT on TRC20',
      { instrumentType: 'crypto', currency: 'USDT', tokenStandard: 'TRC20' },
      ['payee.walletAddress:tron-address'],
    ],
    [
      'the asset code USDT_TRON',
      { instrumentType: 'crypto', currency: 'USDT_TRON' },
      ['payee.walletAddress:tron-address'],
    ],
    ['native TRX', { instrumentType: 'crypto', currency: 'TRX' }, ['payee.walletAddress:tron-address']],
    [
      'USDT on ERC20',
      { instrumentType: 'crypto', currency: 'USDT', tokenStandard: 'ERC20' },
      ['payee.walletAddress:evm-address'],
    ],
    [
      'USDC on BEP20',
      { instrumentType: 'crypto', currency: 'USDC', tokenStandard: 'BEP20' },
      ['payee.walletAddress:evm-address'],
    ],
    ['native ETH', { instrumentType: 'crypto', currency: 'ETH' }, ['payee.walletAddress:evm-address']],
    ['native BNB', { instrumentType: 'crypto', currency: 'BNB' }, ['payee.walletAddress:evm-address']],
    ['BTC', { instrumentType: 'crypto', currency: 'BTC' }, ['payee.walletAddress:bitcoin-address']],
    [
      'the asset code BTC_BITCOIN',
      { instrumentType: 'crypto', currency: 'BTC_BITCOIN' },
      ['payee.walletAddress:bitcoin-address'],
    ],
    ['LTC', { instrumentType: 'crypto', currency: 'LTC' }, ['payee.walletAddress:litecoin-address']],
    ['TON', { instrumentType: 'crypto', currency: 'TON' }, ['payee.walletAddress:ton-address', 'payee.memo?:memo']],
  ])('when the payout goes by %s, then it needs these fields', (_what, input, expected) => {
    expect(paths(requiredPayoutFields(input))).toEqual(expected);
  });

  it.each<[string, PayoutFieldsInput['cardBrands'], string, boolean]>([
    ['humo only, a humo card', ['humo'], '9860123456789015', true],
    ['humo only, an uzcard card', ['humo'], '8600123456789012', false],
    ['uzcard only, an uzcard card', ['uzcard'], '8600123456789012', true],
    ['humo and uzcard, a humo card', ['humo', 'uzcard'], '9860123456789015', true],
    ['humo and uzcard, a visa card', ['humo', 'uzcard'], '4111111111111111', false],
    ['visa and humo, a visa card', ['visa', 'humo'], '4111111111111111', true],
    ['visa, a 19-digit card', ['visa'], '4111111111111111110', true],
    ['visa, an 11-digit number', ['visa'], '41111111111', false],
  ])(
    'when the card brands are %s, then the card number pattern accepts it: %s → %s',
    (_what, cardBrands, pan, accepted) => {
      const [cardNumber] = requiredPayoutFields({ instrumentType: 'card', currency: 'UZS', cardBrands });
      expect(new RegExp(cardNumber.pattern!).test(pan)).toBe(accepted);
    },
  );
});

describe('checkPayee: every missing, malformed or unknown payee field, by its JSON path', () => {
  const card = requiredPayoutFields({ instrumentType: 'card', currency: 'UZS', cardBrands: ['humo', 'uzcard'] });
  const company = requiredPayoutFields({ instrumentType: 'wallet', currency: 'UZS', walletType: 'company' });
  const plainWallet = requiredPayoutFields({ instrumentType: 'wallet', currency: 'UZS' });
  const sepa = requiredPayoutFields({ instrumentType: 'bank_transfer', currency: 'EUR' });
  const phone = requiredPayoutFields({ instrumentType: 'mobile_top_up', currency: 'UZS' });
  const tron = requiredPayoutFields({ instrumentType: 'crypto', currency: 'USDT', tokenStandard: 'TRC20' });
  const evm = requiredPayoutFields({ instrumentType: 'crypto', currency: 'USDT', tokenStandard: 'ERC20' });
  const btc = requiredPayoutFields({ instrumentType: 'crypto', currency: 'BTC' });

  it.each<[string, PayoutFieldSpec[], unknown]>([
    ['a humo card', card, { cardNumber: '9860123456789015', cardHolder: 'JANE DOE' }],
    ['an uzcard card', card, { cardNumber: '8600123456789012', cardHolder: "O'Neil Smith" }],
    ['a company wallet', company, { walletId: 'acc-001', companyName: 'Acme LLC', taxId: '305123456' }],
    ['a wallet without the optional holder name', plainWallet, { walletId: '998901234567' }],
    ['a wallet with the optional holder name', plainWallet, { walletId: '998901234567', walletHolderName: 'Jane Doe' }],
    ['a SEPA account', sepa, { iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', accountName: 'Jane Doe' }],
    ['a phone number', phone, { phone: '+998901234567' }],
    ['a TRON address', tron, { walletAddress: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' }],
    ['an EVM address', evm, { walletAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7' }],
    ['a bech32 bitcoin address', btc, { walletAddress: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq' }],
    ['a base58 bitcoin address', btc, { walletAddress: '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2' }],
  ])('when the payee is %s in the right form, then there is nothing to say', (_what, fields, payee) => {
    expect(checkPayee(fields, payee)).toEqual([]);
  });

  it.each<[string, PayoutFieldSpec[], unknown, { path: string; message: RegExp }[]]>([
    [
      'no payee at all',
      card,
      undefined,
      [
        { path: 'payee.cardNumber', message: /required/ },
        { path: 'payee.cardHolder', message: /required/ },
      ],
    ],
    ['a payee that is not an object', card, 'x', [{ path: 'payee', message: /object/ }]],
    [
      'a card number failing the Luhn check',
      card,
      { cardNumber: '9860123456789016', cardHolder: 'JANE DOE' },
      [{ path: 'payee.cardNumber', message: /check digit/ }],
    ],
    [
      'a visa card for a humo/uzcard method',
      card,
      { cardNumber: '4111111111111111', cardHolder: 'JANE DOE' },
      [{ path: 'payee.cardNumber', message: /9860/ }],
    ],
    [
      'a card number as a JSON number',
      card,
      { cardNumber: 9860123456789015, cardHolder: 'JANE DOE' },
      [{ path: 'payee.cardNumber', message: /string/ }],
    ],
    [
      'an unknown member',
      card,
      { cardNumber: '9860123456789015', cardHolder: 'JANE DOE', cvv: '123' },
      [{ path: 'payee.cvv', message: /not a field/ }],
    ],
    [
      'a company wallet without its tax id',
      company,
      { walletId: 'acc-001', companyName: 'Acme LLC' },
      [{ path: 'payee.taxId', message: /required/ }],
    ],
    [
      'personal names on a company wallet',
      company,
      { walletId: 'acc-001', companyName: 'Acme LLC', taxId: '305123456', firstName: 'Jane' },
      [{ path: 'payee.firstName', message: /not a field/ }],
    ],
    [
      'an IBAN with a wrong checksum',
      sepa,
      { iban: 'DE89370400440532013001', bic: 'COBADEFFXXX', accountName: 'Jane Doe' },
      [{ path: 'payee.iban', message: /checksum/ }],
    ],
    [
      'a BIC of the wrong length',
      sepa,
      { iban: 'DE89370400440532013000', bic: 'COBADE', accountName: 'Jane Doe' },
      [{ path: 'payee.bic', message: /invalid format/ }],
    ],
    ['a phone number without +', phone, { phone: '998901234567' }, [{ path: 'payee.phone', message: /E\.164/ }]],
    [
      'an EVM address for TRC20',
      tron,
      { walletAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7' },
      [{ path: 'payee.walletAddress', message: /TRON/ }],
    ],
    [
      'a TRON address for ERC20',
      evm,
      { walletAddress: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' },
      [{ path: 'payee.walletAddress', message: /0x/ }],
    ],
    [
      'a TRON address with a base58-excluded 0',
      tron,
      { walletAddress: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj60' },
      [{ path: 'payee.walletAddress', message: /invalid format/ }],
    ],
  ])('when the payee has %s, then each problem is named by its path', (_what, fields, payee, expected) => {
    const errors = checkPayee(fields, payee);
    expect(errors).toHaveLength(expected.length);
    expected.forEach((e, i) => {
      expect(errors[i].path).toBe(e.path);
      expect(errors[i].message).toMatch(e.message);
    });
  });

  it('when a field is malformed, then the message never echoes the value (card and account numbers stay out of logs)', () => {
    const [error] = checkPayee(card, { cardNumber: '9860123456789016', cardHolder: 'JANE DOE' });
    expect(error.message).not.toContain('9860123456789016');
  });
});

describe('checkPayee: a card number in a free-text payee field (decision 258)', () => {
  const fieldsOf = (input: Parameters<typeof requiredPayoutFields>[0]) => requiredPayoutFields(input);
  const personal = fieldsOf({ instrumentType: 'wallet', currency: 'USD', walletType: 'personal' });
  const company = fieldsOf({ instrumentType: 'wallet', currency: 'UZS', walletType: 'company' });
  const plainWallet = fieldsOf({ instrumentType: 'wallet', currency: 'UZS' });
  const card = fieldsOf({ instrumentType: 'card', currency: 'UZS', cardBrands: ['uzcard'] });
  const ton = fieldsOf({ instrumentType: 'crypto', currency: 'TON' });
  const bank = fieldsOf({ instrumentType: 'bank_transfer', currency: 'USD' });

  it.each<[string, PayoutFieldSpec[], Record<string, string>, string]>([
    [
      'a card as the wallet id',
      personal,
      { walletId: '4111111111111111', firstName: 'Jane', lastName: 'Doe' },
      'walletId',
    ],
    [
      'a dashed card as the wallet id',
      personal,
      { walletId: '8600-0691-9540-6311', firstName: 'Jane', lastName: 'Doe' },
      'walletId',
    ],
    [
      'a card as the holder name',
      card,
      { cardNumber: '8600069195406311', cardHolder: '8600 0691 9540 6311' },
      'cardHolder',
    ],
    [
      'a card in the wallet holder name',
      plainWallet,
      { walletId: 'w-1', walletHolderName: 'Jane 4111 1111 1111 1111' },
      'walletHolderName',
    ],
    [
      'a card in the company name',
      company,
      { walletId: 'w-1', companyName: 'Acme 5555 5555 5555 4444', taxId: '305123456' },
      'companyName',
    ],
    [
      'a card as the tax id',
      company,
      { walletId: 'w-1', companyName: 'Acme LLC', taxId: '4111-1111-1111-1111' },
      'taxId',
    ],
    ['a card in the memo', ton, { walletAddress: `UQ${'A'.repeat(46)}`, memo: 'card 4111 1111 1111 1111' }, 'memo'],
    [
      'a card in the account name',
      bank,
      { bankCode: '021000021', accountNumber: '000123456789', accountName: 'Jane 4111 1111 1111 1111' },
      'accountName',
    ],
  ])(
    'when the payee has %s, then it is refused naming the field, the number never echoed',
    (_what, fields, payee, name) => {
      const errors = checkPayee(fields, payee);
      expect(errors).toEqual([{ path: `payee.${name}`, message: NO_CARD_NUMBER }]);
    },
  );

  it.each<[string, PayoutFieldSpec[], Record<string, string>]>([
    ['a numeric wallet id (a phone number)', plainWallet, { walletId: '998901234567' }],
    ['a 19-digit numeric wallet id', plainWallet, { walletId: '2026112709512345678' }],
    [
      'an account number that happens to be PAN-shaped (decision 51: not a card)',
      bank,
      { bankCode: '021000021', accountNumber: '4111111111111111', accountName: 'Jane Doe' },
    ],
  ])('when the payee has %s, then it is taken', (_what, fields, payee) => {
    expect(checkPayee(fields, payee)).toEqual([]);
  });
});

describe('checkPayee: every published test card in every free-text payee field (decision 258)', () => {
  const inputs: PayoutFieldsInput[] = [
    { instrumentType: 'card', currency: 'UZS' },
    { instrumentType: 'wallet', currency: 'USD' },
    { instrumentType: 'wallet', currency: 'USD', walletType: 'personal' },
    { instrumentType: 'wallet', currency: 'USD', walletType: 'company' },
    { instrumentType: 'bank_transfer', currency: 'EUR' },
    { instrumentType: 'bank_transfer', currency: 'UZS' },
    { instrumentType: 'bank_transfer', currency: 'USD' },
    { instrumentType: 'mobile_top_up', currency: 'UZS' },
    { instrumentType: 'crypto', currency: 'TON' },
    { instrumentType: 'crypto', currency: 'BTC' },
    { instrumentType: 'crypto', currency: 'USDT', tokenStandard: 'TRC20' },
  ];
  /** The card itself, the bank account's identifiers and the phone are not free text (decision 51). */
  const NOT_FREE_TEXT = ['pan', 'iban', 'account-number', 'bank-code', 'bic', 'e164'];
  const fields = [
    ...new Map(
      inputs
        .flatMap((i) => requiredPayoutFields(i))
        .filter((f) => !NOT_FREE_TEXT.includes(f.format))
        .map((f) => [f.path, f]),
    ).values(),
  ];

  it('when the free-text payee fields are listed, then they are the ones a card number could sit in', () => {
    expect(fields.map((f) => f.path).sort()).toEqual([
      'payee.accountName',
      'payee.cardHolder',
      'payee.companyName',
      'payee.firstName',
      'payee.lastName',
      'payee.memo',
      'payee.taxId',
      'payee.walletAddress',
      'payee.walletHolderName',
      'payee.walletId',
    ]);
  });

  it.each(fields.map((f) => [f.path, f]))(
    'when %s holds any published test card, plain, spaced or dashed, alone or among words, then it is refused naming the field',
    (path, field) => {
      const name = path.slice('payee.'.length);
      for (const { number } of DOCUMENTED_TEST_CARDS)
        for (const card of [number, groupedAsPrinted(number, ' '), groupedAsPrinted(number, '-')])
          for (const value of [card, `to ${card} please`])
            expect(checkPayee([field], { [name]: value })).toEqual([{ path, message: NO_CARD_NUMBER }]);
    },
  );
});
