import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsInt, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import { MAX_ADJUSTMENT_REASON } from '@payments/ledger-domain';

/** An operator's manual adjustment (decision 308); the rules beyond the shape: libs/ledger-domain, adjustments.ts. */
export class AdjustmentDto {
  @ApiProperty({
    example: 'USD',
    description: 'A books currency of the registry, with its token standard: USD, USDT-TRC20',
  })
  @IsDefined()
  @IsString()
  currency: string;

  @ApiProperty({
    example: '25.00',
    description:
      "Signed decimal string, at most the currency's scale, not zero: positive credits the shop's available balance, negative debits it",
  })
  @IsDefined()
  @IsString()
  amount: string;

  @ApiProperty({
    example: 'Goodwill credit for the outage of 2026-11-26, ticket 4411',
    description: 'Why: mandatory, kept with the adjustment and in the audit log',
  })
  @IsDefined()
  @IsString()
  @Length(1, MAX_ADJUSTMENT_REASON)
  reason: string;
}

export class ListShopTransactionsDto {
  @ApiPropertyOptional({ default: 50, minimum: 1, maximum: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({ description: 'The nextCursor of the previous page.' })
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,200}$/, { message: 'must be the nextCursor of a previous page' })
  cursor?: string;
}
