import type { OpenAPIObject } from '@nestjs/swagger';

/** Routes that are not the merchant API: no shop key, so no Idempotency-Key either. */
const NOT_MERCHANT = /^\/(ops|health|docs)(\/|$)/;

/**
 * The interceptor gives every merchant POST the Idempotency-Key header without a decorator on the
 * route; this puts it in the OpenAPI document the same way, so new routes are documented too.
 */
export function documentIdempotencyKey(document: OpenAPIObject): OpenAPIObject {
  for (const [path, item] of Object.entries(document.paths)) {
    if (NOT_MERCHANT.test(path) || !item.post) continue;
    item.post.parameters = [
      ...(item.post.parameters ?? []),
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description:
          'Makes the request safe to retry: the same key and body within 24 hours replay the first answer (header Idempotent-Replayed: true); ' +
          'the same key with another body or route is 422; while the first is still running, 409 with Retry-After.',
        schema: {
          type: 'string',
          minLength: 1,
          maxLength: 255,
          pattern: '^[\\x21-\\x7E]+$',
          example: 'order-1001-attempt',
        },
      },
    ];
  }
  return document;
}
