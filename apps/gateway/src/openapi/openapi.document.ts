import { INestApplication } from '@nestjs/common';
import { OpenAPIObject } from '@nestjs/swagger';
import { serviceOpenApiDocument } from '@payments/platform';
import { MERCHANT_AUTH, OPERATOR_AUTH } from './endpoint.decorator';

/** The document served at /docs and /docs/openapi.json, generated from the controllers' decorators. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  return serviceOpenApiDocument(app, {
    title: 'Payments API',
    description:
      'Merchant API (orders, payouts, P2P; every path also under /api/v1) and operator API (/ops/v1). ' +
      'Every error is an RFC 9457 problem (application/problem+json, schema Problem); docs/errors.md lists the types.',
    securitySchemes: {
      [MERCHANT_AUTH]: { type: 'http', scheme: 'bearer', description: 'Shop API key: Authorization: Bearer sk_…' },
      [OPERATOR_AUTH]: {
        type: 'http',
        scheme: 'bearer',
        description: 'Operator token (OPS_TOKEN); a shop key never opens /ops/v1',
      },
    },
  });
}
