import { applyDecorators, SetMetadata, Type } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiProblems, ProblemStatus } from '@payments/platform';

export const MERCHANT_AUTH = 'merchant-key';
export const OPERATOR_AUTH = 'operator-token';
/** Metadata: the least operator role a route needs (OpsAuthGuard). */
export const OPS_ROLE = 'payments:ops-role';

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
  response?: {
    example: unknown;
    schema?: Record<string, unknown>;
    description?: string;
    /** Members that may be null although the example shows a value (by name, at any depth). */
    nullable?: string[];
    /** Other shapes of the answer (a crypto payout beside a card one): their members join the schema. */
    variants?: unknown[];
    /** Members that are free-form maps (a payee's method-specific fields): other members allowed. */
    open?: string[];
  };
  /** The request body: the DTO class (its schema) and a valid example. Adds 400, 413 and 415. */
  body?: { type: Type<unknown>; example: unknown; examples?: Record<string, unknown> };
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
            examples: {
              example: { summary: 'A valid request', value: doc.body.example },
              ...Object.fromEntries(
                Object.entries(doc.body.examples ?? {}).map(([name, value]) => [
                  name,
                  { summary: `A valid request (${name})`, value },
                ]),
              ),
            },
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
  const { example, schema, description, nullable, variants, open } = doc.response;
  return ApiResponse({
    status,
    description: description ?? 'Success',
    content: {
      'application/json': {
        schema:
          schema ?? schemaOf([example, ...(variants ?? [])], { nullable: new Set(nullable), open: new Set(open) }),
        example,
      },
    },
  });
}

/**
 * A merchant route: shop API key (401 without a valid one), its rate limit (429), plus the common and
 * given errors; a POST also has the Idempotency-Key's 409 (still running) and 422 (reused).
 */
export function MerchantEndpoint(doc: EndpointDoc): MethodDecorator {
  const idempotency: ProblemStatus[] = doc.body ? [409, 422] : [];
  return applyDecorators(
    ApiBearerAuth(MERCHANT_AUTH),
    documented(doc, [401, 429, ...idempotency, ...commonProblems(doc)]),
  );
}

/**
 * An operator route under /ops/v1: operator token (401 without it; a merchant key is refused too;
 * 429 for an address with too many failed tries). `role`: the least role it needs, 403 below it;
 * every route that changes anything names one (`operator` or `admin`); without one, OpsAuthGuard
 * asks `viewer` for GET and `operator` for anything else.
 */
export function OpsEndpoint(doc: EndpointDoc & { role?: 'viewer' | 'operator' | 'admin' }): MethodDecorator {
  const role = doc.role ?? 'viewer';
  return applyDecorators(
    ApiTags('ops'),
    ApiBearerAuth(OPERATOR_AUTH),
    ...(doc.role ? [SetMetadata(OPS_ROLE, doc.role)] : []),
    documented({ ...doc, description: [doc.description, `Role: ${role} or above.`].filter(Boolean).join(' ') }, [
      401,
      ...(role === 'viewer' ? [] : ([403] as const)),
      429,
      ...commonProblems(doc),
    ]),
  );
}

/**
 * A route anyone may call (status codes, health): no security requirement (the document says
 * `security: []`, see openapi.document.ts). Its one 4xx is 405, another method on its path.
 */
export function PublicEndpoint(doc: EndpointDoc): MethodDecorator {
  return documented(doc, [405, ...commonProblems(doc)]);
}

/**
 * A JSON schema read off example values (the example and the route's other answer shapes). Responses
 * are built from contract interfaces that have no runtime shape; deriving the schema from the
 * examples keeps the two from disagreeing, and the e2e tests hold every real answer to it.
 */
interface MemberRules {
  nullable: ReadonlySet<string>;
  open: ReadonlySet<string>;
}

export function schemaOf(
  examples: unknown[],
  rules: MemberRules = { nullable: new Set(), open: new Set() },
): Record<string, unknown> {
  const values = examples.filter((v) => v !== null && v !== undefined);
  const withNull = values.length < examples.filter((v) => v !== undefined).length;
  // A null alone stands for a timestamp or a text not there yet (revokedAt, lastError …); OpenAPI
  // 3.0 needs a type beside nullable, and the e2e tests' answer check catches any other.
  if (values.length === 0) return withNull ? { type: 'string', nullable: true } : {};
  const schema = shapeOf(values, rules);
  return withNull ? { ...schema, nullable: true } : schema;
}

function shapeOf(values: unknown[], rules: MemberRules): Record<string, unknown> {
  const first = values[0];
  if (Array.isArray(first))
    return {
      type: 'array',
      items: schemaOf(
        values.flatMap((v) => v as unknown[]),
        rules,
      ),
    };
  switch (typeof first) {
    case 'string':
      return { type: 'string' };
    case 'boolean':
      return { type: 'boolean' };
    case 'number':
      return { type: values.every((v) => Number.isInteger(v)) ? 'integer' : 'number' };
    case 'object': {
      const objects = values as Record<string, unknown>[];
      const keys = [...new Set(objects.flatMap((o) => Object.keys(o)))];
      return {
        type: 'object',
        properties: Object.fromEntries(
          keys.map((k) => {
            const member = schemaOf(
              objects.map((o) => o[k]),
              rules,
            );
            return [
              k,
              {
                ...member,
                ...(rules.nullable.has(k) ? { nullable: true } : {}),
                ...(rules.open.has(k) ? { additionalProperties: true } : {}),
              },
            ];
          }),
        ),
      };
    }
    default:
      return {};
  }
}
