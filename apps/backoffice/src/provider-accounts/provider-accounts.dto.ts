import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsObject, IsString, Length } from 'class-validator';

/** Why the change is made: mandatory, kept in the audit log (the value never is). */
class Reasoned {
  @ApiProperty({ example: 'The merchant signed its Click contract', description: 'Why; kept in the audit log.' })
  @IsDefined()
  @IsString()
  @Length(1, 500)
  reason: string;
}

export class SetProviderAccountDto extends Reasoned {
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { serviceId: '40123', merchantId: '31987', secretKey: 'the-SECRET_KEY-of-the-Click-cabinet' },
    description:
      "The shop's account as the provider's folder validates it (libs/providers/<code>): Click `serviceId`, " +
      '`merchantId`, `secretKey`; Payme `merchantId` (the cashbox), `key`. The secret is required, sealed at rest, ' +
      'never answered nor logged.',
  })
  @IsDefined()
  @IsObject()
  settings: Record<string, unknown>;
}

export class DeleteProviderAccountDto extends Reasoned {}
