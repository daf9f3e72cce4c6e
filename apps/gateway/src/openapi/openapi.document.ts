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
      // Relative: the document is served by the gateway it describes, whatever its host name.
      .addServer('/', 'The gateway serving this document')
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
  // Not open source: the merchant agreement governs its use. Linters ask for a URL; the only page
  // this gateway is sure to serve about its terms of use is this documentation (decision 91).
  document.info.license = { name: 'Proprietary', url: '/docs' };
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, [PROBLEM_SCHEMA]: problemSchema as never },
  };
  return markPublicOperations(document);
}

/**
 * An operation that requires no scheme says so with `security: []`: a client generator or a linter
 * reads a missing `security` as "unknown", not "public". The OpenAPI test checks that every merchant
 * and operator route names its scheme, so a forgotten decorator cannot pass as public.
 */
function markPublicOperations(document: OpenAPIObject): OpenAPIObject {
  for (const item of Object.values(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const op = item[method];
      if (op && !op.security) op.security = [];
    }
  }
  return document;
}
