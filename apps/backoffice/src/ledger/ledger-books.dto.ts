import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsString, Length } from 'class-validator';
import { MAX_ADJUSTMENT_REASON } from '@payments/ledger-domain';
import { CursorPageDto } from '../ops/ops.dto';

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

/** A shop's ledger transactions, newest first, a page at a time. */
export class ListShopTransactionsDto extends CursorPageDto {}
