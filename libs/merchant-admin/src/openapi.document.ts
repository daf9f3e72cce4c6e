import { INestApplication } from '@nestjs/common';
import { OpenAPIObject } from '@nestjs/swagger';
import { serviceOpenApiDocument } from '@payments/platform';
import { MERCHANT_AUTH, OPERATOR_AUTH } from './endpoint.decorator';

const PROBLEMS =
  'Every error is an RFC 9457 problem (application/problem+json, schema Problem); docs/errors.md lists the types.';

/**
 * The document served at /docs and /docs/openapi.json, generated from the app's own controllers:
 * the gateway's lists the merchant API only, the backoffice's the operators' API only (decision 260).
 */
export function buildOpenApiDocument(app: INestApplication, audience: 'merchant' | 'operator'): OpenAPIObject {
  return audience === 'merchant'
    ? serviceOpenApiDocument(app, {
        title: 'Payments API',
        description: `Merchant API (orders, payouts, P2P; every path also under /api/v1). ${PROBLEMS}`,
        securitySchemes: {
          [MERCHANT_AUTH]: { type: 'http', scheme: 'bearer', description: 'Shop API key: Authorization: Bearer sk_…' },
        },
      })
    : serviceOpenApiDocument(app, {
        title: 'Payments backoffice API',
        description: `Operator API (/ops/v1) of the backoffice. ${PROBLEMS}`,
        securitySchemes: {
          [OPERATOR_AUTH]: {
            type: 'http',
            scheme: 'bearer',
            description: 'Operator token (OPS_TOKEN or a named operator token); a shop key never opens /ops/v1',
          },
        },
      });
}
