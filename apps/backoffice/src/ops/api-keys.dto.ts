import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsInt, IsISO8601, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

export class CreateApiKeyDto {
  @ApiPropertyOptional({
    example: '2027-01-01T00:00:00Z',
    description: 'When the key stops working; never, when absent. Must lie in the future.',
  })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'must be an ISO 8601 date-time, e.g. 2027-01-01T00:00:00Z' })
  expiresAt?: string;
}

export class RotateApiKeyDto extends CreateApiKeyDto {
  @ApiProperty({
    example: 86400,
    description: 'How long the old key keeps working, in seconds (0 ends it now; at most 30 days).',
  })
  @IsDefined()
  @IsInt()
  @Min(0)
  @Max(30 * 24 * 3600)
  overlapSeconds: number;
}

export class RevokeApiKeyDto {
  @ApiPropertyOptional({
    example: 'Key leaked in a public repository',
    description: "Why the key is revoked; kept in the backoffice's log for the audit trail.",
  })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  reason?: string;
}
