import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  isFQDN,
  MaxLength,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Matches,
  Max,
  Min,
  registerDecorator,
  ValidateNested,
} from 'class-validator';
import { OrderStatus, OrderStatuses } from '@payments/contracts';

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

  @ApiPropertyOptional({
    example: 'https://merchant.example.com/payments/callback',
    description: 'https, on a public address (http and local addresses only in local development).',
  })
  @IsOptional()
  @IsString()
  @Length(1, 2048)
  callbackUrl?: string;
}

const PERCENT = /^(0|[1-9][0-9]{0,2})(\.[0-9]{1,4})?$/;
/** Below the order amount, at most all of it: the database refuses more than 100 (found by the fuzzer). */
const LOWER_PERCENT = /^(100(\.0{1,4})?|(0|[1-9][0-9]?)(\.[0-9]{1,4})?)$/;

export class AmountDeviationDto {
  @ApiProperty({
    example: '2',
    pattern: LOWER_PERCENT.source,
    description: 'How far below the order amount a reported amount is accepted, in percent (0 to 100).',
  })
  @IsDefined()
  @Matches(LOWER_PERCENT, { message: 'must be a percentage from 0 to 100 as a decimal string, e.g. "2.5"' })
  lowerPercent: string;

  @ApiProperty({
    example: '5',
    pattern: PERCENT.source,
    description: 'How far above the order amount a reported amount is accepted, in percent (0 to 999.9999).',
  })
  @IsDefined()
  @Matches(PERCENT, { message: 'must be a percentage as a decimal string, e.g. "2.5"' })
  upperPercent: string;
}

export class ProcessingTimeoutDto {
  @ApiPropertyOptional({
    example: 604800,
    description: 'Seconds from order creation; the spec default is 7 days. It can only be raised.',
  })
  @IsOptional()
  @IsInt()
  @Min(604800, { message: 'must be at least 604800 seconds (7 days): the timeout can be increased, not shortened' })
  @Max(31536000)
  defaultSeconds?: number;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'integer' },
    example: { bank_transfer: 1209600 },
    description: 'Per payment setting (instrument type): seconds.',
  })
  @IsOptional()
  @IsObject()
  @IsTimeoutsByPaymentSetting()
  byPaymentSetting?: Record<string, number>;
}

export class UpdateShopSettingsDto {
  @ApiPropertyOptional({ type: AmountDeviationDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => AmountDeviationDto)
  amountDeviation?: AmountDeviationDto;

  @ApiPropertyOptional({ description: 'Shop setting "Automatic finalization of orders in the Need action status".' })
  @IsOptional()
  @IsBoolean()
  autoFinalizeNeedAction?: boolean;

  @ApiPropertyOptional({ type: ProcessingTimeoutDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ProcessingTimeoutDto)
  processingTimeout?: ProcessingTimeoutDto;

  @ApiPropertyOptional({
    type: String,
    example: 'https://merchant.example.com/payments/callback',
    nullable: true,
    description: "Where the shop's callbacks go; null removes it (callbacks are then recorded as skipped).",
  })
  @IsOptional()
  @IsString()
  @Length(1, 2048)
  callbackUrl?: string | null;

  @ApiPropertyOptional({
    enum: ['host_to_host', 'hosted'],
    description: 'What an order without `paymentPageDesign.format` gets: dispatched at once, or a payment link.',
  })
  @IsOptional()
  @IsIn(['host_to_host', 'hosted'])
  defaultIntegration?: 'host_to_host' | 'hosted';

  @ApiPropertyOptional({
    example: true,
    description:
      'Payout via payment page: a payout without payee details (only merchantPayoutId and cost) answers data.payoutLink for the recipient instead of a 400.',
  })
  @IsOptional()
  @IsBoolean()
  payoutViaPaymentPage?: boolean;

  @ApiPropertyOptional({
    type: [String],
    example: ['merchant.example.com'],
    description:
      'Domains a hosted page may send the payer back to (`redirectUrls`), each with its subdomains; replaces the list. At most 20.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsRedirectDomain()
  @MaxLength(253, { each: true })
  redirectDomains?: string[];
}

export class UpdateCompanySettingsDto {
  @ApiProperty({ description: 'Company setting "Use customer data as payer information".' })
  @IsDefined()
  @IsBoolean()
  useCustomerDataAsPayer: boolean;
}

export class ResolveOrderDto {
  @ApiProperty({ enum: ['accept_reported_amount', 'fail'] })
  @IsDefined()
  @IsIn(['accept_reported_amount', 'fail'])
  action: 'accept_reported_amount' | 'fail';

  @ApiPropertyOptional({ example: 'Confirmed with the acquirer' })
  @IsOptional()
  @IsString()
  @Length(1, 1024)
  note?: string;
}

const INSTRUMENTS = ['card', 'wallet', 'bank_transfer', 'mobile_top_up'];

/**
 * Each a domain name with a TLD (`merchant.example.com`), never a bare TLD (`com`) that would
 * allow every domain under it; `localhost` alone is kept for local development and the tests
 * (docs/decisions.md 193).
 */
function IsRedirectDomain() {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isRedirectDomain',
      target: target.constructor,
      propertyName,
      validator: {
        validate: (v: unknown) =>
          Array.isArray(v) &&
          v.every(
            (d) =>
              typeof d === 'string' &&
              (d === 'localhost' || isFQDN(d, { require_tld: true, allow_numeric_tld: false })),
          ),
        defaultMessage: () => 'each must be a domain name with a TLD, e.g. merchant.example.com',
      },
    });
}

function IsTimeoutsByPaymentSetting() {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isTimeoutsByPaymentSetting',
      target: target.constructor,
      propertyName,
      validator: {
        validate: (v: unknown) =>
          typeof v === 'object' &&
          v !== null &&
          Object.entries(v).every(
            ([k, s]) =>
              INSTRUMENTS.includes(k) && Number.isInteger(s) && (s as number) >= 604800 && (s as number) <= 31536000,
          ),
        defaultMessage: () =>
          `must map payment settings (${INSTRUMENTS.join(', ')}) to whole seconds between 604800 (7 days) and 31536000`,
      },
    });
}

/** A cursor-paged list's query: at most `limit` items after the page `cursor` names. */
export class CursorPageDto {
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

export class ListOrdersDto extends CursorPageDto {
  @ApiPropertyOptional({
    enum: OrderStatuses,
    description: 'need_action: the queue of orders waiting for an operator.',
  })
  @IsOptional()
  @IsIn(OrderStatuses)
  status?: OrderStatus;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all', { message: 'must be a shop id (UUID)' })
  shopId?: string;

  @ApiPropertyOptional({ description: "The merchant's own order id (with or without shopId)." })
  @IsOptional()
  @IsString()
  @Length(1, 128)
  merchantOrderId?: string;
}
