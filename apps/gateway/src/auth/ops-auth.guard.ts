import { CanActivate, ExecutionContext, Inject, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { createHash, timingSafeEqual } from 'node:crypto';
import { FAILED_AUTH_THROTTLE, FailedAuthThrottle, ProblemException } from '@payments/platform';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { OperatorRepository } from '../operators/operator.repository';
import { hashOperatorToken, mayAct, Operator, OperatorRole, OPS_TOKEN_OPERATOR } from '../operators/operators';
import { OPS_ROLE } from '../openapi/endpoint.decorator';
import { bearerToken } from './api-keys';

export interface OpsRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  ip?: string;
  body?: unknown;
  params?: Record<string, string>;
  routeOptions?: { url?: string };
  /** Set by OpsAuthGuard: who is acting. */
  operator?: Operator;
}

/**
 * Operator routes take an operator's token: the configured OPS_TOKEN (the first admin) or a named
 * operator's (stored hashed); a merchant key never opens them. The failed-authentication throttle per
 * client address (429 and one log line per address per interval) runs before the token is looked at.
 * A route needs the role its OpsEndpoint names; one that names none needs `viewer` to read and
 * `operator` to change anything, so a viewer can never change state (issue 15 item 1).
 */
@Injectable()
export class OpsAuthGuard implements CanActivate {
  private readonly logger = new Logger('OpsAuth');
  private readonly opsToken: Buffer;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    @Inject(FAILED_AUTH_THROTTLE) private readonly throttle: FailedAuthThrottle,
    private readonly operators: OperatorRepository,
    private readonly reflector: Reflector,
  ) {
    this.opsToken = createHash('sha256').update(config.opsToken).digest();
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<OpsRequest>();
    const operator = await this.authenticate(request.ip, bearerToken(request.headers.authorization));
    request.operator = operator;
    const required =
      this.reflector.get<OperatorRole | undefined>(OPS_ROLE, context.getHandler()) ??
      (request.method === 'GET' || request.method === 'HEAD' ? 'viewer' : 'operator');
    if (!mayAct(operator.role, required)) {
      this.logger.warn(
        `operator ${operator.name} (${operator.role}) refused: ${request.method} ${request.routeOptions?.url ?? ''} needs ${required}`,
      );
      throw new ProblemException('forbidden', `This needs the ${required} role; you are ${operator.role}.`);
    }
    return true;
  }

  /** The operator whose token this is, or the 401 problem (or 429 for an address that keeps failing). */
  async authenticate(address: string | undefined, token: string | undefined): Promise<Operator> {
    const attempt = this.throttle.begin(address, Date.now(), token);
    let operator: Operator | undefined;
    try {
      operator = token ? await this.identify(token) : undefined;
    } catch (err) {
      attempt.abandoned();
      throw err;
    }
    if (!operator) {
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
    return operator;
  }

  private async identify(token: string): Promise<Operator | undefined> {
    const given = createHash('sha256').update(token).digest();
    if (timingSafeEqual(given, this.opsToken)) return OPS_TOKEN_OPERATOR;
    return this.operators.findActive(hashOperatorToken(token));
  }
}
