import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsInt, IsISO8601, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import { MAX_SETTLEMENT_DELAY_SECONDS } from '@payments/ledger-domain';

/** A plain non-negative decimal string: `"2.5"`, `"0.30"`; never a number or an exponent. */
const DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;
const DECIMAL_MESSAGE = 'must be a non-negative decimal string ("2.5", "0.30")';
const CURRENCY = /^[A-Z0-9]{2,16}(-[A-Z0-9]{2,16})?$/;
const CURRENCY_MESSAGE = 'must be a books currency code (USD, BTC, USDT-TRC20)';

/** Why the change is made: mandatory, kept in the audit log (decision 303). */
class Reasoned {
  @ApiProperty({ example: 'Contract of 2026-11-20, schedule B', description: 'Why; kept in the audit log.' })
  @IsDefined()
  @IsString()
  @Length(1, 500)
  reason: string;
}

export class SetFeeDto extends Reasoned {
  @ApiProperty({ example: '2.5', description: 'Percent of the amount, 0–100 (at most 6 decimals)' })
  @IsDefined()
  @IsString()
  @Matches(DECIMAL, { message: DECIMAL_MESSAGE })
  percent: string;

  @ApiProperty({ example: '0.30', description: "Added to the percentage, in the path's currency, at most its scale" })
  @IsDefined()
  @IsString()
  @Matches(DECIMAL, { message: DECIMAL_MESSAGE })
  fixed: string;

  @ApiProperty({ example: '1.00', description: "The least fee, in the path's currency, at most its scale" })
  @IsDefined()
  @IsString()
  @Matches(DECIMAL, { message: DECIMAL_MESSAGE })
  minimum: string;
}

export class DeleteFeeDto extends Reasoned {}

export class SetSettlementDto extends Reasoned {
  @ApiProperty({ example: 0, description: 'How long a credit stays pending before it is available; 0: at once' })
  @IsDefined()
  @IsInt()
  @Min(0)
  @Max(MAX_SETTLEMENT_DELAY_SECONDS)
  settlementDelaySeconds: number;
}

export class SetRateDto extends Reasoned {
  @ApiProperty({ example: 'USD', description: 'The currency converted from' })
  @IsDefined()
  @IsString()
  @Matches(CURRENCY, { message: CURRENCY_MESSAGE })
  base: string;

  @ApiProperty({ example: 'USDT-TRC20', description: 'The currency converted to' })
  @IsDefined()
  @IsString()
  @Matches(CURRENCY, { message: CURRENCY_MESSAGE })
  quote: string;

  @ApiProperty({ example: '0.998', description: '1 base = rate quote; greater than 0' })
  @IsDefined()
  @IsString()
  @Matches(DECIMAL, { message: DECIMAL_MESSAGE })
  rate: string;

  @ApiProperty({ example: '2026-11-27T00:00:00Z', description: 'When it comes in force' })
  @IsDefined()
  @IsISO8601({ strict: true }, { message: 'must be an ISO 8601 date-time' })
  validFrom: string;

  @ApiPropertyOptional({
    example: '2026-11-28T00:00:00Z',
    description: 'When it ends; after validFrom; open when left out',
  })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'must be an ISO 8601 date-time' })
  validTo?: string;
}

export class ListRatesDto {
  @ApiPropertyOptional({ example: 'USD' })
  @IsOptional()
  @Matches(CURRENCY, { message: CURRENCY_MESSAGE })
  base?: string;

  @ApiPropertyOptional({ example: 'USDT-TRC20' })
  @IsOptional()
  @Matches(CURRENCY, { message: CURRENCY_MESSAGE })
  quote?: string;
}
