import type { CardBrand, MethodInstrumentType, PayoutFieldSpec, WalletType } from '@payments/contracts';
import { findCurrency } from '@payments/money';

export interface PayoutFieldsInput {
  instrumentType: MethodInstrumentType;
  currency: string;
  tokenStandard?: string;
  walletType?: WalletType;
  /** The brands of a card method: a method of only domestic Uzbek brands narrows the card number. */
  cardBrands?: readonly CardBrand[];
}

/** Latin letters as embossed on cards and used by banks' name matching; apostrophes, dots, hyphens. */
const NAME = "^[A-Za-z][A-Za-z .'-]{0,98}[A-Za-z.]$";
const BASE58 = '1-9A-HJ-NP-Za-km-z';
const BECH32 = '02-9ac-hj-np-z';

/** Where an IBAN and a BIC identify the account instead of a bank code and account number. */
const IBAN_CURRENCIES = new Set([
  'EUR',
  'CHF',
  'SEK',
  'NOK',
  'DKK',
  'PLN',
  'CZK',
  'HUF',
  'RON',
  'BGN',
  'GBP',
  'AED',
  'SAR',
  'QAR',
  'TRY',
  'GEL',
  'AZN',
  'MDL',
  'UAH',
  'ILS',
  'JOD',
  'KWD',
  'BHD',
]);

/** Domestic bank-code and account-number formats where we know them; the rest get a generic form. */
const DOMESTIC_BANK: Record<string, { bankCode: [string, string]; accountNumber: [string, string] }> = {
  UZS: {
    bankCode: ['^[0-9]{5}$', 'the bank MFO code, 5 digits'],
    accountNumber: ['^[0-9]{20}$', 'the 20-digit account number'],
  },
  RUB: {
    bankCode: ['^04[0-9]{7}$', 'the BIK, 9 digits starting with 04'],
    accountNumber: ['^[0-9]{20}$', 'the 20-digit account number'],
  },
  KZT: {
    bankCode: ['^[A-Z0-9]{8}$', 'the bank BIC, 8 characters'],
    accountNumber: ['^KZ[0-9]{2}[0-9A-Z]{16}$', 'the 20-character IBAN-form account (KZ…)'],
  },
};

const HUMO_PAN = '9860[0-9]{12}';
const UZCARD_PAN = '8600[0-9]{12}';

const field = (
  path: string,
  format: string,
  description: string,
  pattern?: string,
  required = true,
): PayoutFieldSpec => ({
  path,
  type: 'string',
  format,
  ...(pattern ? { pattern } : {}),
  required,
  description,
});

/**
 * The payee fields a payout needs, decided by the method's instrument, the payout currency (and
 * its network for crypto) and the wallet type. The rules are written down in docs/payout-fields.md.
 */
export function requiredPayoutFields(input: PayoutFieldsInput): PayoutFieldSpec[] {
  switch (input.instrumentType) {
    case 'card':
      return [
        cardNumber(input.cardBrands ?? []),
        field('payee.cardHolder', 'card-holder', 'Name of the card holder as on the card, in Latin letters', NAME),
      ];
    case 'wallet':
      return walletFields(input.walletType);
    case 'bank_transfer':
      return bankFields(input.currency);
    case 'mobile_top_up':
      return [
        field(
          'payee.phone',
          'e164',
          'Phone number to top up, in E.164 form (+ and country code)',
          '^\\+[1-9][0-9]{6,14}$',
        ),
      ];
    case 'crypto':
      return cryptoFields(input.currency, input.tokenStandard);
    default: {
      const never: never = input.instrumentType;
      throw new Error(`unknown instrument type ${String(never)}`);
    }
  }
}

function cardNumber(brands: readonly CardBrand[]): PayoutFieldSpec {
  const domestic = brands.length > 0 && brands.every((b) => b === 'humo' || b === 'uzcard');
  if (!domestic)
    return field(
      'payee.cardNumber',
      'pan',
      'Card number, 12 to 19 digits without spaces (Luhn-checked)',
      '^[0-9]{12,19}$',
    );
  const only = [...new Set(brands)];
  if (only.length === 1 && only[0] === 'humo')
    return field(
      'payee.cardNumber',
      'pan',
      'HUMO card number: 16 digits starting with 9860 (Luhn-checked)',
      `^${HUMO_PAN}$`,
    );
  if (only.length === 1 && only[0] === 'uzcard')
    return field(
      'payee.cardNumber',
      'pan',
      'Uzcard card number: 16 digits starting with 8600 (Luhn-checked)',
      `^${UZCARD_PAN}$`,
    );
  return field(
    'payee.cardNumber',
    'pan',
    'HUMO (9860…) or Uzcard (8600…) card number: 16 digits (Luhn-checked)',
    `^(${HUMO_PAN}|${UZCARD_PAN})$`,
  );
}

function walletFields(walletType: WalletType | undefined): PayoutFieldSpec[] {
  const walletId = field(
    'payee.walletId',
    'wallet-id',
    'Identifier of the e-wallet at its provider (account id, login or number)',
    '^[\\x21-\\x7e]{1,128}$',
  );
  switch (walletType) {
    case undefined:
      return [walletId, field('payee.walletHolderName', 'name', 'Name of the wallet holder', NAME, false)];
    case 'personal':
      return [
        walletId,
        field('payee.firstName', 'name', 'First name of the wallet holder', NAME),
        field('payee.lastName', 'name', 'Last name of the wallet holder', NAME),
      ];
    case 'company':
      return [
        walletId,
        field(
          'payee.companyName',
          'company-name',
          'Registered name of the company that holds the wallet',
          '^[^\\x00-\\x1f]{2,256}$',
        ),
        field(
          'payee.taxId',
          'tax-id',
          "The company's tax identification number (letters, digits, hyphens)",
          '^[A-Za-z0-9-]{5,20}$',
        ),
      ];
    default: {
      const never: never = walletType;
      throw new Error(`unknown wallet type ${String(never)}`);
    }
  }
}

function bankFields(currency: string): PayoutFieldSpec[] {
  const accountName = field(
    'payee.accountName',
    'name',
    'Name of the account holder as the bank knows it',
    "^[A-Za-z][A-Za-z0-9 .,'&-]{0,138}[A-Za-z0-9.]$",
  );
  if (IBAN_CURRENCIES.has(currency)) {
    return [
      field(
        'payee.iban',
        'iban',
        'IBAN of the account, without spaces (checksum verified)',
        '^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$',
      ),
      field(
        'payee.bic',
        'bic',
        'BIC (SWIFT code) of the bank, 8 or 11 characters',
        '^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$',
      ),
      accountName,
    ];
  }
  const domestic = DOMESTIC_BANK[currency];
  return [
    domestic
      ? field('payee.bankCode', 'bank-code', `Bank code: ${domestic.bankCode[1]}`, domestic.bankCode[0])
      : field(
          'payee.bankCode',
          'bank-code',
          'Code of the bank (routing number, sort code, IFSC, …)',
          '^[A-Za-z0-9]{3,20}$',
        ),
    domestic
      ? field(
          'payee.accountNumber',
          'account-number',
          `Account number: ${domestic.accountNumber[1]}`,
          domestic.accountNumber[0],
        )
      : field('payee.accountNumber', 'account-number', 'Account number at the bank', '^[A-Za-z0-9]{5,34}$'),
    accountName,
  ];
}

/** The network a crypto payout travels on, whichever currency form names it. */
export function cryptoNetwork(currency: string, tokenStandard?: string): string | undefined {
  const found = findCurrency(currency);
  if (found.kind !== 'found') return undefined;
  const c = found.currency;
  switch (c.kind) {
    case 'asset':
      return c.asset?.tokenStandard ?? c.asset?.coin;
    case 'crypto_token':
      return tokenStandard;
    case 'crypto_native':
      return c.code;
    case 'fiat':
      return undefined;
    default: {
      const never: never = c.kind;
      throw new Error(`unknown currency kind ${String(never)}`);
    }
  }
}

const ADDRESS: Record<string, { format: string; pattern: string; description: string }> = {
  TRON: {
    format: 'tron-address',
    pattern: `^T[${BASE58}]{33}$`,
    description: 'TRON address: base58, 34 characters starting with T',
  },
  EVM: { format: 'evm-address', pattern: '^0x[0-9a-fA-F]{40}$', description: '0x followed by 40 hexadecimal digits' },
  BTC: {
    format: 'bitcoin-address',
    pattern: `^(bc1[${BECH32}]{11,71}|[13][${BASE58}]{25,34})$`,
    description: 'Bitcoin address: bech32 (bc1…) or base58 (1… or 3…)',
  },
  LTC: {
    format: 'litecoin-address',
    pattern: `^(ltc1[${BECH32}]{11,71}|[LM3][${BASE58}]{26,33})$`,
    description: 'Litecoin address: bech32 (ltc1…) or base58 (L…, M… or 3…)',
  },
  TON: {
    format: 'ton-address',
    pattern: '^([EUk0][Qf][A-Za-z0-9_-]{46}|-?[0-9]:[0-9a-fA-F]{64})$',
    description: 'TON address: user-friendly (48 characters, e.g. UQ…/EQ…) or raw (0:<64 hex>)',
  },
};

const NETWORK_ADDRESS: Record<string, keyof typeof ADDRESS> = {
  TRC20: 'TRON',
  TRX: 'TRON',
  ERC20: 'EVM',
  BEP20: 'EVM',
  ETH: 'EVM',
  BNB: 'EVM',
  BTC: 'BTC',
  LTC: 'LTC',
  TON: 'TON',
};

function cryptoFields(currency: string, tokenStandard?: string): PayoutFieldSpec[] {
  const network = cryptoNetwork(currency, tokenStandard);
  const kind = network ? NETWORK_ADDRESS[network] : undefined;
  const address = kind
    ? field(
        'payee.walletAddress',
        ADDRESS[kind].format,
        `Receiving address on ${network}: ${ADDRESS[kind].description}`,
        ADDRESS[kind].pattern,
      )
    : field(
        'payee.walletAddress',
        'crypto-address',
        'Receiving address on the currency network',
        '^[A-Za-z0-9:_-]{16,128}$',
      );
  // TON deposits to exchanges are told apart by a comment; without it the money is hard to trace.
  if (kind === 'TON')
    return [
      address,
      field(
        'payee.memo',
        'memo',
        'Comment (memo) the receiving exchange or wallet asks for',
        '^[\\x20-\\x7e]{1,120}$',
        false,
      ),
    ];
  return [address];
}
