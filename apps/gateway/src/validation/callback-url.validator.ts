import { applyDecorators } from '@nestjs/common';
import { IsOptional, IsUrl, MaxLength } from 'class-validator';

/**
 * A per-object override of the shop's callback URL: an absolute http(s) URL. Whether the host is
 * acceptable (no private addresses, …) is checked where callbacks are delivered.
 */
export function IsOptionalCallbackUrl() {
  return applyDecorators(
    IsOptional(),
    IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false }, { message: 'must be an absolute http(s) URL' }),
    MaxLength(2048),
  );
}
