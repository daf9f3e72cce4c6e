import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsDefined,
  IsEmail,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { CostDto } from '../orders/create-order.dto';
import { IsOptionalCallbackUrl } from '@payments/merchant-admin';
import { IsCardNumber, NoCardNumber } from '../validation/card-number.validator';

export class P2pDetailsDto {
  @ApiProperty({ example: 'p2p-3001', description: "The merchant's own id of the transaction; unique per shop." })
  @IsDefined()
  @IsString()
  @Length(1, 128)
  @Matches(/^[\x21-\x7e]+$/, { message: 'must be printable ASCII without spaces' })
  @NoCardNumber()
  merchantP2pId: string;

  @ApiProperty({ type: CostDto, description: 'Same currency rules as order.cost.' })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => CostDto)
  cost: CostDto;

  @ApiPropertyOptional({ example: 'Rent for November' })
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  @NoCardNumber()
  description?: string;
}

/** One side of a P2P transaction (docs/decisions.md 50). Card numbers are answered masked (decision 51). */
export class P2pPartyDto {
  @ApiPropertyOptional({ example: 'cust-42', description: "The merchant's own reference of its customer." })
  @IsOptional()
  @IsString()
  @Length(1, 128)
  @NoCardNumber()
  customerId?: string;

  @ApiPropertyOptional({ example: 'Jane Doe' })
  @IsOptional()
  @IsString()
  @Length(1, 256)
  @NoCardNumber()
  name?: string;

  @ApiPropertyOptional({ example: 'jane@example.com' })
  @IsOptional()
  @IsEmail()
  @MaxLength(254)
  email?: string;

  @ApiPropertyOptional({ example: '+998901234567', description: 'E.164 phone number.' })
  @IsOptional()
  @Matches(/^\+[1-9][0-9]{6,14}$/, { message: 'must be an E.164 phone number, e.g. +998901234567' })
  phone?: string;

  @ApiPropertyOptional({
    example: '8600123456789012',
    description: 'Card number (12 to 19 digits, Luhn-checked); answered masked.',
  })
  @IsOptional()
  @IsCardNumber()
  cardNumber?: string;

  @ApiPropertyOptional({ example: 'wallet-7781', description: 'An e-wallet id at the provider.' })
  @IsOptional()
  @IsString()
  @Length(1, 128)
  @NoCardNumber()
  walletId?: string;
}

export class CreateP2pDto {
  @ApiProperty({ type: P2pDetailsDto })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => P2pDetailsDto)
  p2p: P2pDetailsDto;

  @ApiPropertyOptional({ type: P2pPartyDto, description: 'Who sends the money.' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => P2pPartyDto)
  sender?: P2pPartyDto;

  @ApiPropertyOptional({ type: P2pPartyDto, description: 'Who receives the money.' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => P2pPartyDto)
  recipient?: P2pPartyDto;

  @ApiPropertyOptional({
    example: 'https://shop.example/callbacks/p2p',
    description: "Overrides the shop's callback URL for this transaction.",
  })
  @IsOptionalCallbackUrl()
  callbackUrl?: string;
}
