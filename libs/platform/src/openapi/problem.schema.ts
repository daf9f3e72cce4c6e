import { ProblemKind, ProblemTypes, problemTypeUri } from '../problem';

export const PROBLEM_SCHEMA = 'Problem';
export const PROBLEM_REF = `#/components/schemas/${PROBLEM_SCHEMA}`;

/** The one RFC 9457 schema every error response of the API refers to. */
export const problemSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail'],
  properties: {
    type: {
      type: 'string',
      description: 'Stable problem type; clients branch on it (docs/errors.md).',
      example: '/problems/validation-error',
    },
    title: { type: 'string', description: 'Short summary of the problem type.' },
    status: { type: 'integer', description: 'The HTTP status code.' },
    detail: { type: 'string', description: 'What went wrong with this request, for a human.' },
    errors: {
      type: 'array',
      description: 'One entry per bad field (400 validation-error).',
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: {
          path: {
            type: 'string',
            description: 'JSON path of the field in the request body.',
            example: 'order.cost.amount',
          },
          message: { type: 'string', example: 'must be a decimal string' },
        },
      },
    },
    traceId: {
      type: 'string',
      format: 'uuid',
      description: '5xx only: quote it to support; the log has the cause under it.',
    },
    retryable: { type: 'boolean', description: '503 only: the request may be retried with the same Idempotency-Key.' },
  },
  additionalProperties: true,
} as const;

/** The HTTP statuses an endpoint can declare, each with the problem kinds it answers. */
export const PROBLEM_STATUSES = {
  400: ['validation', 'malformedBody'],
  401: ['unauthorized'],
  403: ['forbidden'],
  404: ['notFound'],
  405: ['methodNotAllowed'],
  409: ['conflict', 'idempotencyInProgress'],
  413: ['payloadTooLarge'],
  415: ['unsupportedMediaType'],
  422: ['unprocessable', 'idempotencyKeyReused'],
  429: ['rateLimited'],
  500: ['internal'],
  503: ['unavailable'],
} as const satisfies Record<number, readonly ProblemKind[]>;
export type ProblemStatus = keyof typeof PROBLEM_STATUSES;

const DETAILS: Record<ProblemKind, { detail: string; extra?: Record<string, unknown> }> = {
  validation: {
    detail: 'order.cost.amount: must be a decimal string',
    extra: { errors: [{ path: 'order.cost.amount', message: 'must be a decimal string' }] },
  },
  malformedBody: { detail: 'The request body could not be parsed as JSON.' },
  unauthorized: { detail: 'A valid shop API key is required: Authorization: Bearer <key>.' },
  forbidden: { detail: 'This shop id is not the shop of your API key.' },
  notFound: { detail: 'No such order.' },
  methodNotAllowed: { detail: 'DELETE is not allowed here; use GET, HEAD.' },
  conflict: { detail: 'The order is completed and cannot be cancelled.' },
  payloadTooLarge: { detail: 'The request body exceeds the size limit.' },
  unsupportedMediaType: { detail: 'Send the body as application/json.' },
  unprocessable: { detail: 'The request is well-formed but cannot be done.' },
  rateLimited: { detail: 'Too many requests; retry after the Retry-After seconds.' },
  headersTooLarge: { detail: 'The request line and headers must be at most 16 KiB.' },
  idempotencyKeyReused: {
    detail: 'This Idempotency-Key was used for another request; use a new key for a new request.',
    extra: { errors: [{ path: "headers['Idempotency-Key']", message: 'was used for another request' }] },
  },
  idempotencyInProgress: {
    detail: 'A request with this Idempotency-Key is still being processed; retry after the Retry-After seconds.',
  },
  internal: {
    detail: 'An internal error occurred. It has been logged under the traceId of this answer; retry later.',
    extra: { traceId: '3f1c2a9e-6b7d-4f0e-9a51-2c8d7e6f5a40' },
  },
  unavailable: { detail: 'The service is temporarily unavailable; retry later.', extra: { retryable: true } },
};

/** A realistic problem document of the kind, for the examples of the document. */
export function problemExample(kind: ProblemKind): Record<string, unknown> {
  const t = ProblemTypes[kind];
  return {
    type: problemTypeUri(kind),
    title: t.title,
    status: t.status,
    detail: DETAILS[kind].detail,
    ...(DETAILS[kind].extra ?? {}),
  };
}
