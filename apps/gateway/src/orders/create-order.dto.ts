import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  Equals,
  IsDefined,
  IsEmail,
  IsIn,
  IsInt,
  IsISO8601,
  IsObject,
  Max,
  Min,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { IsKnownCurrency, IsMoneyAmount, IsTokenStandardForCurrency } from '@payments/merchant-admin';
import { IsOpenStringRecord } from '../validation/open-object.validator';
import { NoCardNumber } from '../validation/card-number.validator';

export const INSTRUMENT_TYPES = ['card', 'wallet', 'bank_transfer', 'mobile_top_up'] as const;
export const WALLET_TYPES = ['personal', 'company'] as const;

export class CostDto {
  @ApiProperty({ example: '100.50', description: 'Amount as a decimal string; never a JSON number.' })
  @IsDefined()
  @IsMoneyAmount()
  amount: string;

  @ApiProperty({ example: 'USD', description: 'Fiat ISO 4217 code, crypto_currency_code or asset_code.' })
  @IsDefined()
  @IsString()
  @IsKnownCurrency()
  currency: string;

  @ApiPropertyOptional({
    example: 'TRC20',
    description:
      'Token standard (TRC20, ERC20, BEP20) of a token-based cryptocurrency given as crypto_currency_code; refused for native coins and fiat; not needed for asset codes.',
  })
  // No @IsOptional: the validator itself decides whether the currency needs one.
  @IsTokenStandardForCurrency()
  tokenStandard?: string;
}

export class RedirectUrlsDto {
  @ApiPropertyOptional({
    example: 'https://merchant.example.com/orders/1001/paid',
    description:
      'Where the page sends the payer after a completed payment, with orderId and status added to the query. https on a domain the shop allow-listed (operator setting redirectDomains).',
  })
  @IsOptional()
  @IsString()
  @Length(1, 2048)
  success?: string;

  @ApiPropertyOptional({
    example: 'https://merchant.example.com/orders/1001/not-paid',
    description: 'Where the page sends the payer after a failed payment; the same rules as success.',
  })
  @IsOptional()
  @IsString()
  @Length(1, 2048)
  failure?: string;
}

export class PaymentSettingsDto {
  @ApiPropertyOptional({ enum: WALLET_TYPES, description: 'Only with instrumentType = wallet.' })
  @IsOptional()
  @IsIn(WALLET_TYPES)
  walletType?: (typeof WALLET_TYPES)[number];

  @ApiPropertyOptional({
    type: RedirectUrlsDto,
    description: "The PSP's place for redirectUrls (docs/decisions.md 126); the same as the top-level redirectUrls.",
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => RedirectUrlsDto)
  redirectUrls?: RedirectUrlsDto;

  @ApiPropertyOptional({
    example: '2026-06-09T10:30:00.000Z',
    description:
      "The PSP's timeLimit: the instant the payment link expires (ISO 8601 with Z or a UTC offset), 60 s to 24 h from now. The top-level timeLimit gives seconds instead.",
  })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'must be an ISO 8601 instant, e.g. 2026-06-09T10:30:00Z' })
  timeLimit?: string;
}

export class WalletDataDto {
  @ApiPropertyOptional() @IsOptional() @IsString() @Length(1, 128) @NoCardNumber() walletId?: string;
  @ApiPropertyOptional({ enum: WALLET_TYPES })
  @IsOptional()
  @IsIn(WALLET_TYPES)
  walletType?: (typeof WALLET_TYPES)[number];
  @ApiPropertyOptional() @IsOptional() @IsString() @Length(1, 128) @NoCardNumber() walletName?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @Length(1, 256) @NoCardNumber() walletHolderName?: string;
}

export class MerchantBalanceDto {
  @ApiProperty({
    example: 'USDT',
    description: 'Currency of the merchant balance (fiat or crypto), independent of order.cost.currency.',
  })
  @IsDefined()
  @IsString()
  @IsKnownCurrency()
  currency: string;

  @ApiPropertyOptional({
    example: 'TRC20',
    description: 'Token standard of a token-based balance currency; ignored for fiat.',
  })
  @IsTokenStandardForCurrency({ ignoreForFiat: true })
  tokenStandard?: string;
}

export class RecipientDto {
  @ApiPropertyOptional({ type: MerchantBalanceDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => MerchantBalanceDto)
  merchantBalance?: MerchantBalanceDto;
}

export class OrderDetailsDto {
  @ApiProperty({ example: 'shop-order-1001', description: "The merchant's own order id; unique per shop." })
  @IsDefined()
  @IsString()
  @Length(1, 128)
  @Matches(/^[\x21-\x7e]+$/, { message: 'must be printable ASCII without spaces' })
  @NoCardNumber()
  merchantOrderId: string;

  @ApiProperty({ type: CostDto })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => CostDto)
  cost: CostDto;

  @ApiPropertyOptional({ example: 'Order #1001' })
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  @NoCardNumber()
  description?: string;
}

export class PayerDto {
  @ApiPropertyOptional({ description: 'Identifies a known customer.' })
  @IsOptional()
  @IsString()
  @Length(1, 128)
  @NoCardNumber()
  customerId?: string;

  @ApiPropertyOptional({ example: 'payer@example.com' })
  @IsOptional()
  @IsEmail()
  @MaxLength(254)
  email?: string;

  @ApiPropertyOptional({ example: '+998901234567', description: 'E.164 phone number.' })
  @IsOptional()
  @Matches(/^\+[1-9][0-9]{6,14}$/, { message: 'must be an E.164 phone number, e.g. +998901234567' })
  phone?: string;

  @ApiPropertyOptional({ example: 'Jane Doe' })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  @NoCardNumber()
  name?: string;

  @ApiPropertyOptional({
    type: WalletDataDto,
    description: "The payer's e-wallet, for providers that accept digital wallets.",
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => WalletDataDto)
  walletData?: WalletDataDto;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    description:
      'Bank transfer details (bankCode, accountName, accountNumber, …; the set is open). Used with instrumentType = bank_transfer; takes effect only where the company setting "Use customer data as payer information" is on.',
    example: { bankCode: 'NBU01', accountName: 'Jane Doe', accountNumber: '20208000900123456789' },
  })
  @IsOptional()
  @IsOpenStringRecord()
  bankTransferData?: Record<string, string>;
}

/** `redirect` is the PSP's name of the hosted format (docs/decisions.md 126). */
export const INTEGRATION_FORMATS = ['host_to_host', 'hosted', 'shop_hosted', 'redirect'] as const;
export type IntegrationFormat = (typeof INTEGRATION_FORMATS)[number];
export const PAGE_LOCALES = ['uz', 'ru', 'en'] as const;

export class PaymentPageDesignDto {
  @ApiPropertyOptional({
    enum: INTEGRATION_FORMATS,
    description:
      "host_to_host: dispatched at once (today's flow). hosted (the PSP's redirect): the order stays registered and the answer carries data.paymentLink and data.expiresAt for the payer. shop_hosted: for an instruction method, the instructions go to the shop; for any other method the standard flow runs. Absent: the shop's default integration.",
  })
  @IsOptional()
  @IsIn(INTEGRATION_FORMATS)
  format?: IntegrationFormat;

  @ApiPropertyOptional({
    example: 'default',
    description: "The PSP's page design alias: accepted, there is one design.",
  })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  alias?: string;

  @ApiPropertyOptional({
    enum: PAGE_LOCALES,
    description: "The page's language; absent, the payer's browser language (Accept-Language), else en.",
  })
  @IsOptional()
  @IsIn(PAGE_LOCALES)
  locale?: (typeof PAGE_LOCALES)[number];
}

const CRYPTO_PAYMENT_REMOVED =
  'cryptoPayment was removed on 14.04.2026: use order.cost.tokenStandard (was cryptoPayment.walletTokenStandard), ' +
  'recipient.merchantBalance.currency (was cryptoPayment.accountCurrency.currency) and ' +
  'recipient.merchantBalance.tokenStandard (was cryptoPayment.accountCurrency.networkTokenStandard)';

export class CreateOrderDto {
  @ApiProperty({ type: OrderDetailsDto })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => OrderDetailsDto)
  order: OrderDetailsDto;

  @ApiPropertyOptional({ enum: INSTRUMENT_TYPES })
  @IsOptional()
  @IsIn(INSTRUMENT_TYPES)
  instrumentType?: (typeof INSTRUMENT_TYPES)[number];

  @ApiPropertyOptional({ type: PaymentSettingsDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => PaymentSettingsDto)
  paymentSettings?: PaymentSettingsDto;

  @ApiPropertyOptional({ type: PayerDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => PayerDto)
  payer?: PayerDto;

  @ApiPropertyOptional({ type: RecipientDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => RecipientDto)
  recipient?: RecipientDto;

  @ApiPropertyOptional({
    example: 'https://merchant.example.com/payments/callback',
    description: "Where this order's status callbacks go instead of the shop's callback URL. https, public address.",
  })
  @IsOptional()
  @IsString()
  @Length(1, 2048)
  callbackUrl?: string;

  @ApiPropertyOptional({ type: PaymentPageDesignDto, description: 'Integration format and page language (issue 20).' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => PaymentPageDesignDto)
  paymentPageDesign?: PaymentPageDesignDto;

  @ApiPropertyOptional({
    type: RedirectUrlsDto,
    description: 'Where a hosted page sends the payer when the order is final.',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => RedirectUrlsDto)
  redirectUrls?: RedirectUrlsDto;

  @ApiPropertyOptional({
    example: 1800,
    minimum: 60,
    maximum: 86400,
    description: 'Seconds the payment link stays payable (hosted); then the order fails with 1-07-08. Default 1800.',
  })
  @IsOptional()
  @IsInt()
  @Min(60)
  @Max(86400)
  timeLimit?: number;

  /** Declared only to answer its use with the names of its replacements. */
  @ValidateIf((o: CreateOrderDto) => o.cryptoPayment !== undefined)
  @Equals(undefined, { message: CRYPTO_PAYMENT_REMOVED })
  cryptoPayment?: unknown;
}
