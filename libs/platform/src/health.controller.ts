import { Controller, Get } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { DataSource } from 'typeorm';

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  @Get()
  @ApiOperation({ summary: 'Liveness and database reachability, for load balancers and orchestrators' })
  @ApiResponse({
    status: 200,
    description: 'The service is up and reaches its database',
    content: {
      'application/json': {
        schema: { type: 'object', properties: { status: { type: 'string', enum: ['ok'] } } },
        example: { status: 'ok' },
      },
    },
  })
  // The schema is the one each HTTP app's document registers as `Problem` (RFC 9457).
  @ApiResponse({
    status: 500,
    description: '`/problems/internal-error`: the database cannot be reached',
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  })
  @ApiResponse({
    status: 405,
    description: '`/problems/method-not-allowed`: another method than GET or HEAD',
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  })
  async health(): Promise<{ status: 'ok' }> {
    await this.dataSource.query('SELECT 1');
    return { status: 'ok' };
  }
}
