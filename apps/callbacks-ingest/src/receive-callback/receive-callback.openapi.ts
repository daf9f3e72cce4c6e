import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOperation, ApiParam, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ApiProblems } from '@payments/platform';

export const PROVIDER_SIGNATURE = 'provider-signature';

/** The scheme a provider signs with: HMAC over the timestamp and the raw body, in one header. */
export const providerSignatureScheme = {
  type: 'apiKey',
  in: 'header',
  name: 'X-Signature',
  description:
    't=<unix seconds>,v1=<hex HMAC-SHA256(provider secret, "<t>.<raw body>")>; 300 s tolerance. ' +
    'A missing or bad signature is 401 and nothing is stored.',
} as const;

const example = {
  eventId: 'evt_5b1e0c7a',
  kind: 'payment',
  reference: '7d3f1a9e-2b4c-4e8f-9a61-5c0d2e3f4a5b',
  paymentId: 'pay_8c2d4e6f',
  status: 'success',
  amount: '100.00',
  currency: 'USD',
};

/** The sandbox provider's callback, the reference every real adapter's body is read like (ARCHITECTURE §6). */
const sandboxCallbackSchema = {
  type: 'object',
  required: ['eventId', 'kind', 'reference', 'status', 'amount', 'currency'],
  properties: {
    eventId: { type: 'string', minLength: 1, maxLength: 128, description: "The provider's own event id." },
    kind: { type: 'string', enum: ['payment', 'payout', 'p2p'] },
    reference: { type: 'string', minLength: 1, maxLength: 128, description: 'Our order, payout or P2P id.' },
    paymentId: { type: 'string', minLength: 1, maxLength: 128 },
    status: { type: 'string', enum: ['success', 'failed', 'pending'] },
    amount: { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$', description: 'A decimal string.' },
    currency: { type: 'string', minLength: 1, maxLength: 32, pattern: '^[A-Z0-9_]+$' },
    tokenStandard: { type: 'string', minLength: 1, maxLength: 16 },
    reason: { type: 'string', maxLength: 512 },
  },
};

/** The OpenAPI description of POST /callbacks/{providerCode}. */
export function ReceiveCallbackDoc(): MethodDecorator {
  return applyDecorators(
    ApiTags('provider callbacks'),
    ApiOperation({
      summary: "A provider's signed callback: stored once it is durable, then normalized into provider.events",
      description:
        'The same callback sent again is answered 200 again, with duplicate: true, and has no second effect.',
    }),
    ApiSecurity(PROVIDER_SIGNATURE),
    ApiParam({ name: 'providerCode', example: 'sandbox', description: 'The provider, as configured (sandbox).' }),
    ApiHeader({ name: 'X-Signature', required: true, description: providerSignatureScheme.description }),
    ApiBody({
      description: "The provider's own body; the sandbox's is shown.",
      schema: sandboxCallbackSchema,
      examples: { sandbox: { summary: 'A sandbox payment succeeded', value: example } },
    }),
    ApiResponse({
      status: 200,
      description: 'Stored (or stored before: duplicate)',
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['received', 'duplicate'],
            properties: { received: { type: 'boolean', enum: [true] }, duplicate: { type: 'boolean' } },
          },
          example: { received: true, duplicate: false },
        },
      },
    }),
    ApiProblems(400, 401, 404, 413, 415, 429, 500),
  );
}
