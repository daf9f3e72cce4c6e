import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsDefined,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  ValidateNested,
} from 'class-validator';
import { CardBrands, MethodInstrumentTypes } from '@payments/contracts';

const DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;
const DECIMAL_MESSAGE = 'must be a non-negative decimal string ("10.00")';

/** Why the change is made: mandatory, kept in the audit log (decision 320). */
class Reasoned {
  @ApiProperty({ example: 'Acquirer A is down for maintenance tonight', description: 'Why; kept in the audit log.' })
  @IsDefined()
  @IsString()
  @Length(1, 500)
  reason: string;
}

export class RouteConditionsDto {
  @ApiPropertyOptional({ enum: MethodInstrumentTypes, isArray: true, example: ['card'] })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @IsIn(MethodInstrumentTypes, { each: true })
  instrumentTypes?: string[];

  @ApiPropertyOptional({
    enum: CardBrands,
    isArray: true,
    example: ['visa', 'mastercard'],
    description: "The card's brand by its BIN; an order whose card is not known (made without a page) does not fit",
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @IsIn(CardBrands, { each: true })
  brands?: string[];

  @ApiPropertyOptional({ type: [String], example: ['USD', 'EUR'] })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(32)
  @IsString({ each: true })
  @Length(1, 32, { each: true })
  currencies?: string[];

  @ApiPropertyOptional({ example: '1.00', description: "The order's amount at least this" })
  @IsOptional()
  @IsString()
  @Matches(DECIMAL, { message: DECIMAL_MESSAGE })
  minAmount?: string;

  @ApiPropertyOptional({ example: '5000.00', description: "The order's amount at most this" })
  @IsOptional()
  @IsString()
  @Matches(DECIMAL, { message: DECIMAL_MESSAGE })
  maxAmount?: string;
}

export class RouteStepDto {
  @ApiProperty({ example: 'sandbox', description: 'A provider code of the registry' })
  @IsDefined()
  @IsString()
  @Length(1, 32)
  provider: string;

  @ApiPropertyOptional({ type: RouteConditionsDto, description: 'Every condition given must hold; none: always' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => RouteConditionsDto)
  when?: RouteConditionsDto;
}

export class SetRouteDto extends Reasoned {
  @ApiProperty({
    type: [RouteStepDto],
    description:
      'In order: an attempt goes to the first that fits the order; a card attempt refused before acceptance fails over to the next that fits',
  })
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(8)
  @ValidateNested({ each: true })
  @Type(() => RouteStepDto)
  providers: RouteStepDto[];
}

export class DeleteRouteDto extends Reasoned {}
