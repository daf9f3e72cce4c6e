import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { SecuritySchemeObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ProblemTypes } from '../problem';
import { PROBLEM_REF, PROBLEM_SCHEMA, problemExample, problemSchema } from './problem.schema';

export interface ServiceDocumentInfo {
  title: string;
  description: string;
  /** Security schemes by name, as the operations' decorators refer to them. */
  securitySchemes?: Record<string, SecuritySchemeObject>;
}

/**
 * The OpenAPI document of one HTTP service, generated from its controllers' decorators, with what
 * every service's document has: the shared Problem schema, a server, a license, and `security: []`
 * on the operations that need no credentials.
 */
export function serviceOpenApiDocument(app: INestApplication, info: ServiceDocumentInfo): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle(info.title)
    .setDescription(info.description)
    .setVersion('1')
    // Relative: the document is served by the service it describes, whatever its host name.
    .addServer('/', 'The service serving this document');
  for (const [name, scheme] of Object.entries(info.securitySchemes ?? {})) builder.addSecurity(name, scheme);
  const document = SwaggerModule.createDocument(app, builder.build());
  // Not open source: the merchant agreement governs its use. Linters ask for a URL; the only page
  // each service is sure to serve about its terms of use is this documentation (decision 91).
  document.info.license = { name: 'Proprietary', url: '/docs' };
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, [PROBLEM_SCHEMA]: problemSchema as never },
  };
  return documentPathErrors(markPublicOperations(document));
}

/**
 * A path with parameters can be refused before its route runs: bad percent-encoding, or a value
 * over 100 characters, is a 400 naming `url` (service-app.ts). Every such operation declares it.
 */
function documentPathErrors(document: OpenAPIObject): OpenAPIObject {
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.includes('{')) continue;
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const op = item[method];
      if (!op || op.responses['400']) continue;
      op.responses['400'] = {
        description: `\`/problems/${ProblemTypes.validation.slug}\`: the path is not a valid URL, or a path value is too long`,
        content: {
          'application/problem+json': {
            schema: { $ref: PROBLEM_REF },
            example: {
              ...problemExample('validation'),
              detail: 'The path is invalid: a path parameter is longer than 100 characters',
              errors: [{ path: 'url', message: 'has a path parameter longer than 100 characters' }],
            },
          },
        },
      };
    }
  }
  return document;
}

/**
 * An operation that requires no scheme says so with `security: []`: a client generator or a linter
 * reads a missing `security` as "unknown", not "public". The gateway's OpenAPI test checks that every
 * merchant and operator route names its scheme, so a forgotten decorator cannot pass as public.
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
