import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  ValidateNested,
} from 'class-validator';
import { CardBrands, DataEntryModes, MethodInstrumentTypes, WalletTypes } from '@payments/contracts';
import type { CardBrand, DataEntryMode, MethodInstrumentType, WalletType } from '@payments/contracts';
import { METHOD_CODE_PATTERN, PROVIDER_CODE_PATTERN } from '@payments/methods-domain';
import { IsKnownCurrency, IsMoneyAmount, IsTokenStandardForCurrency } from './money.validators';

const CODE_MESSAGE = 'must be 2 to 64 lower-case letters, digits, "-" or "_", starting with a letter or digit';

export class PayoutSettingsDto {
  @ApiProperty({
    example: 'uzcard-payout',
    description: "Code of one of the shop's payout methods (GET /payouts/payout-methods/{shopId}).",
  })
  @IsDefined()
  @IsString()
  @Length(1, 64)
  method: string;

  @ApiProperty({
    example: 'UZS',
    description: 'Payout currency: fiat ISO 4217 code, crypto_currency_code or asset_code.',
  })
  @IsDefined()
  @IsString()
  @IsKnownCurrency()
  currency: string;

  @ApiPropertyOptional({
    example: 'TRC20',
    description: 'Token standard of a token-based cryptocurrency given as crypto_currency_code.',
  })
  @IsTokenStandardForCurrency()
  tokenStandard?: string;

  @ApiPropertyOptional({
    enum: WalletTypes,
    description:
      'Only for wallet methods; changes the payee fields (personal: names; company: company name and tax id).',
  })
  @IsOptional()
  @IsIn(WalletTypes)
  walletType?: WalletType;
}

export class PayoutFieldsRequestDto {
  @ApiProperty({ type: PayoutSettingsDto })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => PayoutSettingsDto)
  payoutSettings: PayoutSettingsDto;
}

export class PayoutFieldSpecDto {
  @ApiProperty({ example: 'payee.cardNumber', description: 'JSON path of the field in the create-payout body.' })
  path: string;

  @ApiProperty({ example: 'string', enum: ['string'] })
  type: 'string';

  @ApiProperty({
    example: 'pan',
    description:
      'Stable format name: pan, card-holder, e164, iban, bic, bank-code, account-number, wallet-id, name, company-name, tax-id, tron-address, evm-address, bitcoin-address, litecoin-address, ton-address, memo, crypto-address.',
  })
  format: string;

  @ApiPropertyOptional({
    example: '^(9860[0-9]{12}|8600[0-9]{12})$',
    description: 'ECMAScript pattern the whole value matches; some formats also check a checksum (Luhn, IBAN).',
  })
  pattern?: string;

  @ApiProperty({ example: true })
  required: boolean;

  @ApiProperty({ example: 'HUMO (9860…) or Uzcard (8600…) card number: 16 digits (Luhn-checked)' })
  description: string;
}

export class PayoutFieldsResponseDto {
  @ApiProperty({ example: 'uzcard-payout' })
  method: string;

  @ApiProperty({ example: 'UZS' })
  currency: string;

  @ApiPropertyOptional({ example: 'TRC20' })
  tokenStandard?: string;

  @ApiPropertyOptional({ enum: WalletTypes })
  walletType?: WalletType;

  @ApiProperty({ type: [PayoutFieldSpecDto] })
  fields: PayoutFieldSpecDto[];
}

export class MethodCurrencyDto {
  @ApiProperty({
    example: 'UZS',
    description: 'Fiat ISO 4217 code, crypto_currency_code (with tokenStandard for tokens) or asset_code.',
  })
  @IsDefined()
  @IsString()
  @IsKnownCurrency()
  currency: string;

  @ApiPropertyOptional({
    example: 'TRC20',
    description: 'Required for a token given as crypto_currency_code; refused for fiat and native coins.',
  })
  @IsTokenStandardForCurrency()
  tokenStandard?: string;

  @ApiPropertyOptional({
    example: '1000.00',
    description: 'Smallest amount per operation, a decimal string at the currency scale.',
  })
  @IsOptional()
  @IsMoneyAmount()
  minAmount?: string;

  @ApiPropertyOptional({
    example: '5000000.00',
    description: 'Largest amount per operation, a decimal string at the currency scale.',
  })
  @IsOptional()
  @IsMoneyAmount()
  maxAmount?: string;
}

export class MethodViewDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'uzcard-payout' })
  code: string;

  @ApiProperty({ enum: MethodInstrumentTypes, example: 'card' })
  instrumentType: MethodInstrumentType;

  @ApiPropertyOptional({
    enum: CardBrands,
    isArray: true,
    example: ['humo', 'uzcard'],
    description: 'Card methods only.',
  })
  cardBrands?: CardBrand[];

  @ApiPropertyOptional({
    enum: WalletTypes,
    isArray: true,
    example: ['personal', 'company'],
    description: 'Present only when the method has at least one wallet type.',
  })
  walletTypes?: WalletType[];

  @ApiProperty({
    enum: DataEntryModes,
    example: 'card_form',
    description:
      "How the payer gives the data: card_form (a card form on the hosted page), instruction (an app, wallet or transfer completed elsewhere: deeplink, QR), redirect (the provider's page).",
  })
  dataEntryMode: DataEntryMode;

  @ApiProperty({ type: [MethodCurrencyDto] })
  currencies: MethodCurrencyDto[];

  @ApiProperty({ example: 'sandbox' })
  provider: string;

  @ApiProperty({ example: true })
  enabled: boolean;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt: string;
}

export class MethodListDto {
  @ApiProperty({ format: 'uuid' })
  shopId: string;

  @ApiProperty({ type: [MethodViewDto] })
  methods: MethodViewDto[];
}

/** Fields an operator may change on an existing method; the instrument type is fixed at creation. */
export class UpdateMethodDto {
  @ApiPropertyOptional({
    example: 'uzcard-payout',
    description: 'Merchant-facing code, unique per shop and direction.',
  })
  @IsOptional()
  @IsString()
  @Matches(METHOD_CODE_PATTERN, { message: CODE_MESSAGE })
  code?: string;

  @ApiPropertyOptional({
    enum: CardBrands,
    isArray: true,
    example: ['humo', 'uzcard'],
    description: 'Card methods only; at least one.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(CardBrands.length)
  @IsIn(CardBrands, { each: true, message: `each brand must be one of ${CardBrands.join(', ')}` })
  cardBrands?: CardBrand[];

  @ApiPropertyOptional({
    enum: WalletTypes,
    isArray: true,
    example: ['personal', 'company'],
    description: 'Wallet methods only; may be empty.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(WalletTypes.length)
  @IsIn(WalletTypes, { each: true, message: `each wallet type must be one of ${WalletTypes.join(', ')}` })
  walletTypes?: WalletType[];

  @ApiPropertyOptional({
    enum: DataEntryModes,
    description: 'How the payer gives the data; default card_form for card methods, instruction for the others.',
  })
  @IsOptional()
  @IsIn(DataEntryModes)
  dataEntryMode?: DataEntryMode;

  @ApiPropertyOptional({ type: [MethodCurrencyDto] })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  // Each one an object: ValidateNested passes a nested array through (the fuzzer's [[]] reached methods).
  @IsObject({ each: true, message: 'each currency must be an object' })
  @ValidateNested({ each: true })
  @Type(() => MethodCurrencyDto)
  currencies?: MethodCurrencyDto[];

  @ApiPropertyOptional({ example: 'sandbox', description: 'Code of the provider that carries the method.' })
  @IsOptional()
  @IsString()
  @Matches(PROVIDER_CODE_PATTERN, { message: 'must be a provider code: lower-case letters, digits, "-" or "_"' })
  provider?: string;

  @ApiPropertyOptional({
    example: true,
    description: 'A disabled method is hidden from merchants and refuses payouts.',
  })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

/** Standalone rather than extending UpdateMethodDto: an inherited @IsOptional would switch off @IsDefined. */
export class CreateMethodDto {
  @ApiProperty({ example: 'uzcard-payout', description: 'Merchant-facing code, unique per shop and direction.' })
  @IsDefined()
  @IsString()
  @Matches(METHOD_CODE_PATTERN, { message: CODE_MESSAGE })
  code: string;

  @ApiProperty({ enum: MethodInstrumentTypes, example: 'card' })
  @IsDefined()
  @IsIn(MethodInstrumentTypes)
  instrumentType: MethodInstrumentType;

  @ApiPropertyOptional({
    enum: CardBrands,
    isArray: true,
    example: ['humo', 'uzcard'],
    description: 'Required for card methods, refused for others.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(CardBrands.length)
  @IsIn(CardBrands, { each: true, message: `each brand must be one of ${CardBrands.join(', ')}` })
  cardBrands?: CardBrand[];

  @ApiPropertyOptional({
    enum: WalletTypes,
    isArray: true,
    example: ['personal', 'company'],
    description: 'Wallet methods only; may be empty or absent.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(WalletTypes.length)
  @IsIn(WalletTypes, { each: true, message: `each wallet type must be one of ${WalletTypes.join(', ')}` })
  walletTypes?: WalletType[];

  @ApiPropertyOptional({
    enum: DataEntryModes,
    description: 'How the payer gives the data; default card_form for card methods, instruction for the others.',
  })
  @IsOptional()
  @IsIn(DataEntryModes)
  dataEntryMode?: DataEntryMode;

  @ApiProperty({ type: [MethodCurrencyDto] })
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  // Each one an object: ValidateNested passes a nested array through (the fuzzer's [[]] reached methods).
  @IsObject({ each: true, message: 'each currency must be an object' })
  @ValidateNested({ each: true })
  @Type(() => MethodCurrencyDto)
  currencies: MethodCurrencyDto[];

  @ApiProperty({ example: 'sandbox', description: 'Code of the provider that carries the method.' })
  @IsDefined()
  @IsString()
  @Matches(PROVIDER_CODE_PATTERN, { message: 'must be a provider code: lower-case letters, digits, "-" or "_"' })
  provider: string;

  @ApiPropertyOptional({
    example: true,
    default: true,
    description: 'A disabled method is hidden from merchants and refuses payouts.',
  })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}
