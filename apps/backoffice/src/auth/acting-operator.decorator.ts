import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { OperatorIdentity } from '@payments/contracts';
import type { OpsRequest } from './ops-auth.guard';

/** The operator OpsAuthGuard set on the request, for a route or a read called by the audit interceptor. */
export function operatorOfRequest(request: Pick<OpsRequest, 'operator'>): OperatorIdentity {
  // OpsAuthGuard runs first on every operator route: without an operator the route never runs.
  if (!request.operator) throw new Error('no operator on an operator route: is OpsAuthGuard missing?');
  return request.operator;
}

/**
 * The acting operator as a route parameter: what the backoffice puts on every command it sends on
 * an operator path (`asOperator`, decision 301).
 */
export const ActingOperator = createParamDecorator((_: unknown, context: ExecutionContext) =>
  operatorOfRequest(context.switchToHttp().getRequest<OpsRequest>()),
);
