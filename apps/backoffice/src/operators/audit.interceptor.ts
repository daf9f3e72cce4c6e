import { CallHandler, ExecutionContext, Injectable, Logger, NestInterceptor } from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import { ProblemException } from '@payments/platform';
import { from, mergeMap, Observable } from 'rxjs';
import { OpsRequest } from '../auth/ops-auth.guard';
import { AuditRepository } from './audit.repository';
import { AUDITED, AuditSpec } from './audited.decorator';
import { Operator } from './operators';

/** Members never written to the audit log: a created key, token or secret is shown once, to its creator. */
const SECRET_MEMBERS = new Set([
  'apiKey',
  'token',
  'callbackSecret',
  'previousCallbackSecret',
  'secret',
  // A provider account's secret (decision 341): its routes never answer it; kept out here too.
  'secretKey',
]);

export function redacted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redacted);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, SECRET_MEMBERS.has(k) ? '[redacted]' : redacted(v)]),
    );
  return value;
}

/** The ids the backoffice reads by: UUIDs, card vault tokens (`card_` and a UUID), and the numeric ids of its own rows (dead letters). */
const UUID = /^((card_)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9]{1,18})$/i;

function reasonOf(body: unknown): string | null {
  if (!body || typeof body !== 'object') return null;
  const { reason, note } = body as { reason?: unknown; note?: unknown };
  if (typeof reason === 'string') return reason;
  if (typeof note === 'string') return note;
  return null;
}

function objectIdOf(spec: AuditSpec, params: Record<string, string>, body: unknown, answerId: unknown): string | null {
  if (spec.idParam) return params[spec.idParam] ?? null;
  if (spec.idBody) {
    const id = body && typeof body === 'object' ? (body as Record<string, unknown>)[spec.idBody] : undefined;
    return typeof id === 'string' ? id : null;
  }
  return typeof answerId === 'string' ? answerId : null;
}

/**
 * Writes the audit record of every state-changing operator request that succeeded: who (the
 * operator OpsAuthGuard identified), when, what (the route's Audited action), on which object,
 * before (read through the route's own GET) and after (its answer), and the reason typed in
 * (`reason`, or `note` where the route calls it that). Requests without an operator (merchant
 * routes) and reads pass untouched. A change that failed changed nothing and is not recorded.
 */
@Injectable()
export class AuditInterceptor implements NestInterceptor {
  private readonly logger = new Logger('Audit');

  constructor(
    private readonly reflector: Reflector,
    private readonly audit: AuditRepository,
    private readonly modules: ModuleRef,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<OpsRequest>();
    const operator = request.operator;
    if (!operator || request.method === 'GET' || request.method === 'HEAD') return next.handle();
    const spec: AuditSpec = this.reflector.get<AuditSpec | undefined>(AUDITED, context.getHandler()) ?? {
      action: `${request.method} ${request.routeOptions?.url ?? request.url}`,
      object: 'unknown',
    };
    if (spec.recordsItself) return next.handle();
    const params = request.params ?? {};
    return from(this.read(spec, context, params, operator)).pipe(
      mergeMap((before) =>
        next.handle().pipe(
          mergeMap(async (after: unknown) => {
            const answerId = (after as { id?: unknown } | undefined)?.id;
            await this.audit.append({
              operator,
              action: spec.action,
              objectType: spec.object,
              objectId: objectIdOf(spec, params, request.body, answerId),
              before: redacted(before ?? null),
              after: redacted(after ?? null),
              reason: reasonOf(request.body),
              request: `${request.method} ${request.url.split('?')[0]}`,
            });
            return after;
          }),
        ),
      ),
    );
  }

  /**
   * The object before the action, through the controller's own read, called with the route
   * parameters and then the acting operator (a read that asks a domain service sends it, decision
   * 301). Interceptors run before the route's pipes, so the parameters are not validated yet: every
   * id here is a UUID, anything else is not read (the pipe answers 404 and nothing changes), but
   * for the parameters the read checks itself (`checkedByRead`).
   */
  private async read(
    spec: AuditSpec,
    context: ExecutionContext,
    params: Record<string, string>,
    operator: Operator,
  ): Promise<unknown> {
    if (!spec.read) return null;
    const args = spec.read.args.map((name) => params[name] ?? '');
    const checked = spec.read.checkedByRead ?? [];
    if (!args.every((a, i) => UUID.test(a) || checked.includes(spec.read!.args[i]))) return null;
    const controller = this.modules.get(context.getClass(), { strict: false }) as Record<string, unknown>;
    const method = controller[spec.read.method] as (...a: unknown[]) => Promise<unknown>;
    try {
      return await method.apply(controller, [...args, operator]);
    } catch (err) {
      if (!(err instanceof ProblemException && err.kind === 'notFound'))
        this.logger.warn(`audit: reading the object before ${spec.action} failed: ${String(err)}`);
      return null;
    }
  }
}
