import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsDefined,
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { OperatorRole, OperatorRoles } from '../operators/operators';

export class CreateOperatorDto {
  @ApiProperty({ example: 'Alice Martin', description: 'Shown in the audit log; unique, case-insensitive.' })
  @IsDefined()
  @IsString()
  @Length(1, 100)
  @Matches(/^[\p{L}\p{N}][\p{L}\p{N} .'_-]*$/u, { message: "must be letters, digits, spaces and . ' _ -" })
  name: string;

  @ApiProperty({ enum: OperatorRoles, description: 'viewer reads; operator also acts; admin also manages operators.' })
  @IsDefined()
  @IsIn(OperatorRoles)
  role: OperatorRole;
}

export class DisableOperatorDto {
  @ApiProperty({ example: 'Left the team', description: 'Why; kept in the audit log.' })
  @IsDefined()
  @IsString()
  @Length(1, 500)
  reason: string;
}

export class ListAuditDto {
  @ApiPropertyOptional({ description: 'Operator id (`ops-token` for the configured OPS_TOKEN)', example: 'ops-token' })
  @IsOptional()
  @Matches(/^(ops-token|[0-9a-fA-F-]{36})$/, { message: 'must be an operator id' })
  operatorId?: string;

  @ApiPropertyOptional({ example: 'order.resolve' })
  @IsOptional()
  @Matches(/^[a-z][a-z0-9_.-]{0,63}$/, { message: 'must be an action name such as order.resolve' })
  action?: string;

  @ApiPropertyOptional({ example: 'order' })
  @IsOptional()
  @Matches(/^[a-z][a-z0-9_-]{0,31}$/, { message: 'must be an object type such as order' })
  objectType?: string;

  @ApiPropertyOptional({ example: '7d6f1b2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  objectId?: string;

  @ApiPropertyOptional({ example: '2026-11-24T00:00:00Z', description: 'Records at or after this time.' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'must be an ISO 8601 timestamp' })
  from?: string;

  @ApiPropertyOptional({ example: '2026-11-25T00:00:00Z', description: 'Records before this time.' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'must be an ISO 8601 timestamp' })
  to?: string;

  @ApiPropertyOptional({ default: 50, minimum: 1, maximum: 200 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;

  @ApiPropertyOptional({ description: 'The nextCursor of the previous page.' })
  @IsOptional()
  @Matches(/^[0-9]{1,19}$/, { message: 'must be the nextCursor of a previous page' })
  cursor?: string;
}
