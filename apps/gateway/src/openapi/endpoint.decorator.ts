import { applyDecorators, Type } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiProblems } from './api-problems.decorator';
import { ProblemStatus } from './problem.schema';

export const MERCHANT_AUTH = 'merchant-key';
export const OPERATOR_AUTH = 'operator-token';

export interface EndpointDoc {
  summary: string;
  description?: string;
  deprecated?: boolean;
  /** The success status (200 unless given). */
  status?: number;
  /**
   * A realistic success answer; its schema is the `schema` given, else derived from it. Left out
   * only with status 204, which by HTTP has no body to describe.
   */
  response?: { example: unknown; schema?: Record<string, unknown>; description?: string };
  /** The request body: the DTO class (its schema) and a valid example. Adds 400, 413 and 415. */
  body?: { type: Type<unknown>; example: unknown };
  /** Errors beyond the ones every endpoint of its kind has (404 for an id, 409, 422, 503 …). */
  problems?: ProblemStatus[];
}

/** Errors any route can give: a bug (500); with a body, bad fields or JSON (400), size (413), type (415). */
function commonProblems(doc: EndpointDoc): ProblemStatus[] {
  return [500, ...(doc.body ? ([400, 413, 415] as const) : []), ...(doc.problems ?? [])];
}

function documented(doc: EndpointDoc, problems: ProblemStatus[]): MethodDecorator {
  const status = doc.status ?? 200;
  return applyDecorators(
    ApiOperation({
      summary: doc.summary,
      ...(doc.description ? { description: doc.description } : {}),
      ...(doc.deprecated ? { deprecated: true } : {}),
    }),
    ...(doc.body
      ? [
          ApiBody({
            type: doc.body.type,
            examples: { example: { summary: 'A valid request', value: doc.body.example } },
          }),
        ]
      : []),
    successResponse(status, doc),
    ApiProblems(...problems),
  );
}

function successResponse(status: number, doc: EndpointDoc): MethodDecorator {
  if (status === 204) return ApiResponse({ status, description: doc.response?.description ?? 'Done; no body' });
  if (!doc.response) throw new Error(`"${doc.summary}": a ${status} answer needs a response example`);
  const { example, schema, description } = doc.response;
  return ApiResponse({
    status,
    description: description ?? 'Success',
    content: { 'application/json': { schema: schema ?? schemaOf(example), example } },
  });
}

/**
 * A merchant route: shop API key (401 without a valid one), its rate limit (429), plus the common and
 * given errors; a POST also has the Idempotency-Key's 409 (still running) and 422 (reused).
 */
export function MerchantEndpoint(doc: EndpointDoc): MethodDecorator {
  return applyDecorators(ApiBearerAuth(MERCHANT_AUTH), documented(doc, [401, 429, ...commonProblems(doc)]));
}

/** An operator route under /ops/v1: operator token (401 without it; a merchant key is refused too). */
export function OpsEndpoint(doc: EndpointDoc): MethodDecorator {
  return applyDecorators(ApiTags('ops'), ApiBearerAuth(OPERATOR_AUTH), documented(doc, [401, ...commonProblems(doc)]));
}

/**
 * A route anyone may call (status codes, health): no security requirement (the document says
 * `security: []`, see openapi.document.ts). Its one 4xx is 405, another method on its path.
 */
export function PublicEndpoint(doc: EndpointDoc): MethodDecorator {
  return documented(doc, [405, ...commonProblems(doc)]);
}

/**
 * A JSON schema read off an example value. Responses are built from contract interfaces that
 * have no runtime shape; deriving the schema from the example keeps the two from disagreeing.
 */
export function schemaOf(example: unknown): Record<string, unknown> {
  // A null in an answer stands for a timestamp or a text not there yet (revokedAt, lastError …);
  // OpenAPI 3.0 needs a type beside nullable, and the e2e tests' answer check catches any other.
  if (example === null) return { type: 'string', nullable: true };
  if (Array.isArray(example)) return { type: 'array', items: example.length > 0 ? schemaOf(example[0]) : {} };
  switch (typeof example) {
    case 'string':
      return { type: 'string' };
    case 'boolean':
      return { type: 'boolean' };
    case 'number':
      return { type: Number.isInteger(example) ? 'integer' : 'number' };
    case 'object':
      return {
        type: 'object',
        properties: Object.fromEntries(
          Object.entries(example as Record<string, unknown>).map(([k, v]) => [k, schemaOf(v)]),
        ),
      };
    default:
      return {};
  }
}
