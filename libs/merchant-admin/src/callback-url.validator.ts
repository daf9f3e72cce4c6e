import { applyDecorators } from '@nestjs/common';
import { IsOptional, IsUrl, MaxLength } from 'class-validator';
import { FieldError, ProblemException } from '@payments/platform';
import { callbackUrlProblem } from '@payments/merchant-callbacks-domain';
import { MerchantAdminConfig } from './merchant-admin.config';

/**
 * Checks a callback URL where one is set (shop creation, shop settings, an order's, payout's or
 * P2P transaction's override). Not a class-validator decorator: whether http and local addresses
 * are allowed is configuration (local development), which decorators cannot see.
 */
export function callbackUrlErrors(
  url: string | null | undefined,
  path: string,
  config: Pick<MerchantAdminConfig, 'callbackUrlAllowInsecure'>,
): FieldError[] {
  if (url === undefined || url === null) return [];
  const problem = callbackUrlProblem(url, { allowInsecure: config.callbackUrlAllowInsecure });
  return problem ? [{ path, message: problem }] : [];
}

export function assertValid(errors: FieldError[]): void {
  if (errors.length > 0)
    throw new ProblemException('validation', errors.map((e) => `${e.path}: ${e.message}`).join('; '), errors);
}

/**
 * The shape of an optional callback URL on a DTO (an absolute http(s) URL, reported with the other
 * fields); the policy (https, public address) is `callbackUrlErrors`, in the controller.
 */
export function IsOptionalCallbackUrl() {
  return applyDecorators(
    IsOptional(),
    IsUrl(
      { protocols: ['http', 'https'], require_protocol: true, require_tld: false },
      { message: 'must be an absolute http(s) URL' },
    ),
    MaxLength(2048),
  );
}
