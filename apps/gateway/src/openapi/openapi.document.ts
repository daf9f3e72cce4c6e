import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { MERCHANT_AUTH, OPERATOR_AUTH } from './endpoint.decorator';
import { PROBLEM_SCHEMA, problemSchema } from './problem.schema';

/** The document served at /docs and /docs/openapi.json, generated from the controllers' decorators. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Payments API')
      .setDescription(
        'Merchant API (orders, payouts, P2P; every path also under /api/v1) and operator API (/ops/v1). ' +
          'Every error is an RFC 9457 problem (application/problem+json, schema Problem); docs/errors.md lists the types.',
      )
      .setVersion('1')
      .addBearerAuth(
        { type: 'http', scheme: 'bearer', description: 'Shop API key: Authorization: Bearer sk_…' },
        MERCHANT_AUTH,
      )
      .addBearerAuth(
        { type: 'http', scheme: 'bearer', description: 'Operator token (OPS_TOKEN); a shop key never opens /ops/v1' },
        OPERATOR_AUTH,
      )
      .build(),
  );
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, [PROBLEM_SCHEMA]: problemSchema as never },
  };
  return document;
}
