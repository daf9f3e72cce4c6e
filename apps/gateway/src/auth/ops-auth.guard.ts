import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { timingSafeEqual, createHash } from 'node:crypto';
import { ProblemException } from '@payments/platform';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { bearerToken } from './api-keys';

/** Operator routes take the operator token from configuration; a merchant key never opens them. */
@Injectable()
export class OpsAuthGuard implements CanActivate {
  private readonly expected: Buffer;

  constructor(@Inject(GATEWAY_CONFIG) config: GatewayConfig) {
    this.expected = createHash('sha256').update(config.opsToken).digest();
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string | string[] | undefined> }>();
    const token = bearerToken(request.headers.authorization);
    const given = createHash('sha256')
      .update(token ?? '')
      .digest();
    if (!token || !timingSafeEqual(given, this.expected)) {
      throw new ProblemException(
        'unauthorized',
        'A valid operator token is required: Authorization: Bearer <token>.',
        undefined,
        {},
        { 'www-authenticate': 'Bearer' },
      );
    }
    return true;
  }
}
