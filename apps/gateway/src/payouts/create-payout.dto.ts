import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsDefined,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { PayoutInstrumentTypes } from '@payments/contracts';
import { CostDto, WALLET_TYPES } from '../orders/create-order.dto';
import { IsOptionalCallbackUrl } from '../validation/callback-url.validator';
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

  @ApiProperty({
    example: 'uzcard_payout',
    description: "Code of one of the shop's payout methods (GET /payouts/payout-methods/{shopId}).",
  })
  @IsDefined()
  @IsString()
  @Length(1, 64)
  method: string;

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

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    description:
      'The payee: the fields the method requires (POST /payouts/fields answers which, with their formats). Card and account numbers are answered masked.',
    example: { cardNumber: '8600123456789012', holderName: 'JANE DOE' },
  })
  @IsDefined()
  @IsOpenStringRecord()
  payee: Record<string, string>;

  @ApiPropertyOptional({
    example: 'https://shop.example/callbacks/payouts',
    description: "Overrides the shop's callback URL for this payout.",
  })
  @IsOptionalCallbackUrl()
  callbackUrl?: string;
}
