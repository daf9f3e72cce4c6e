import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  Equals, IsDefined, IsEmail, IsObject, IsOptional, IsString, Length, Matches, MaxLength, ValidateIf, ValidateNested,
} from 'class-validator';
import { IsKnownCurrency, IsMoneyAmount } from '../validation/money.validators';

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

  @ApiPropertyOptional({ example: 'TRC20', description: 'Token standard of a token-based cryptocurrency.' })
  @IsOptional()
  @IsString()
  @MaxLength(16)
  tokenStandard?: string;
}

export class OrderDetailsDto {
  @ApiProperty({ example: 'shop-order-1001', description: "The merchant's own order id; unique per shop." })
  @IsDefined()
  @IsString()
  @Length(1, 128)
  @Matches(/^[\x21-\x7e]+$/, { message: 'must be printable ASCII without spaces' })
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
  description?: string;
}

export class PayerDto {
  @ApiPropertyOptional({ description: 'Identifies a known customer.' })
  @IsOptional()
  @IsString()
  @Length(1, 128)
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
  name?: string;
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

  @ApiPropertyOptional({ type: PayerDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => PayerDto)
  payer?: PayerDto;

  /** Declared only to answer its use with the names of its replacements. */
  @ValidateIf((o: CreateOrderDto) => o.cryptoPayment !== undefined)
  @Equals(undefined, { message: CRYPTO_PAYMENT_REMOVED })
  cryptoPayment?: unknown;
}
