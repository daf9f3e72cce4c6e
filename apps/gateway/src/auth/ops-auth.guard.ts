import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { timingSafeEqual, createHash } from 'node:crypto';
import { FAILED_AUTH_THROTTLE, FailedAuthThrottle, ProblemException } from '@payments/platform';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { bearerToken } from './api-keys';

/**
 * Operator routes take the operator token from configuration; a merchant key never opens them. The
 * same failed-authentication throttle per client address as the merchant routes.
 */
@Injectable()
export class OpsAuthGuard implements CanActivate {
  private readonly expected: Buffer;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    @Inject(FAILED_AUTH_THROTTLE) private readonly throttle: FailedAuthThrottle,
  ) {
    this.expected = createHash('sha256').update(config.opsToken).digest();
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context
      .switchToHttp()
      .getRequest<{ headers: Record<string, string | string[] | undefined>; ip?: string }>();
    const now = Date.now();
    const token = bearerToken(request.headers.authorization);
    const attempt = this.throttle.begin(request.ip, now, token);
    const given = createHash('sha256')
      .update(token ?? '')
      .digest();
    if (!token || !timingSafeEqual(given, this.expected)) {
      attempt.failed();
      throw new ProblemException(
        'unauthorized',
        'A valid operator token is required: Authorization: Bearer <token>.',
        undefined,
        {},
        { 'www-authenticate': 'Bearer' },
      );
    }
    attempt.succeeded();
    return true;
  }
}
