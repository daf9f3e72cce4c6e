import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsDefined, IsOptional, IsString, IsUrl, Length } from 'class-validator';

export class CreateCompanyDto {
  @ApiProperty({ example: 'Demo Company' })
  @IsDefined()
  @IsString()
  @Length(1, 256)
  name: string;

  @ApiPropertyOptional({ description: 'Company setting "Use customer data as payer information".' })
  @IsOptional()
  @IsBoolean()
  useCustomerDataAsPayer?: boolean;
}

export class CreateShopDto {
  @ApiProperty({ example: 'Demo Shop' })
  @IsDefined()
  @IsString()
  @Length(1, 256)
  name: string;

  @ApiPropertyOptional({ example: 'https://merchant.example.com/payments/callback' })
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  callbackUrl?: string;
}
