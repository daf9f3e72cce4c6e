import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { PayoutInstrumentTypes } from '@payments/contracts';
import { CostDto, PaymentPageDesignDto, RedirectUrlsDto, WALLET_TYPES } from '../orders/create-order.dto';
import { IsOptionalCallbackUrl } from '@payments/merchant-admin';
import { IsOpenStringRecord } from '../validation/open-object.validator';
import { NoCardNumber } from '../validation/card-number.validator';

export class PayoutDetailsDto {
  @ApiProperty({ example: 'payout-2001', description: "The merchant's own payout id; unique per shop." })
  @IsDefined()
  @IsString()
  @Length(1, 128)
  @Matches(/^[\x21-\x7e]+$/, { message: 'must be printable ASCII without spaces' })
  @NoCardNumber()
  merchantPayoutId: string;

  @ApiPropertyOptional({
    example: 'uzcard_payout',
    description:
      "Code of one of the shop's payout methods (GET /payouts/payout-methods/{shopId}). Optional only for a payout via payment page (no payee), where paymentSettingsAlias or the amount and currency choose it.",
  })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  method?: string;

  @ApiProperty({ type: CostDto, description: 'Same currency rules as order.cost.' })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => CostDto)
  cost: CostDto;

  @ApiPropertyOptional({
    example: 'TRC20',
    description: 'Existing field, unchanged: kept and answered as given, independent of cost.tokenStandard.',
  })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,16}$/, { message: 'must be 1 to 16 letters, digits, "_" or "-"' })
  cryptoTokenStandard?: string;

  @ApiPropertyOptional({ example: 'Refund of order 1001' })
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  @NoCardNumber()
  description?: string;
}

export class CreatePayoutDto {
  @ApiProperty({ type: PayoutDetailsDto })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => PayoutDetailsDto)
  payout: PayoutDetailsDto;

  @ApiPropertyOptional({
    enum: PayoutInstrumentTypes,
    description: "Must match the payout method's instrument type when given.",
  })
  @IsOptional()
  @IsIn(PayoutInstrumentTypes)
  instrumentType?: (typeof PayoutInstrumentTypes)[number];

  @ApiPropertyOptional({
    enum: WALLET_TYPES,
    description: "Only with instrumentType = wallet; one of the method's walletTypes.",
  })
  @IsOptional()
  @IsIn(WALLET_TYPES)
  walletType?: (typeof WALLET_TYPES)[number];

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    description:
      'Required but for a payout via payment page. The payee: the fields the method requires (POST /payouts/fields answers which, with their formats). Card and account numbers are answered masked.',
    example: { cardNumber: '8600123456789012', holderName: 'JANE DOE' },
  })
  @IsOptional()
  @IsOpenStringRecord()
  payee?: Record<string, string>;

  @ApiPropertyOptional({
    example: 'humo_payout',
    description:
      "Payout via payment page: the payout method (its code) the recipient is paid with; absent, the shop's payout method that fits the amount and currency (none: 1-03-02).",
  })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  paymentSettingsAlias?: string;

  @ApiPropertyOptional({
    type: PaymentPageDesignDto,
    description:
      'Payout via payment page: the page language (format is accepted as for orders; a payout without payee gets a link when the shop has the setting on).',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => PaymentPageDesignDto)
  paymentPageDesign?: PaymentPageDesignDto;

  @ApiPropertyOptional({
    type: RedirectUrlsDto,
    description:
      "Where the payout page sends the recipient when the payout is final; on the shop's allow-listed domains.",
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
    description: 'Seconds the payout link takes the recipient details; then the payout is cancelled. Default 1800.',
  })
  @IsOptional()
  @IsInt()
  @Min(60)
  @Max(86400)
  timeLimit?: number;

  @ApiPropertyOptional({
    example: 'https://shop.example/callbacks/payouts',
    description: "Overrides the shop's callback URL for this payout.",
  })
  @IsOptionalCallbackUrl()
  callbackUrl?: string;
}
