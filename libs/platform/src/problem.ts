import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  HttpStatus,
  Logger,
  NotFoundException,
  ValidationError,
  ValidationPipe,
} from '@nestjs/common';
import { isInfrastructureFault } from './infrastructure-fault';
import { randomUUID } from 'node:crypto';

export interface FieldError {
  /** JSON path of the field in the request body, e.g. `order.cost.amount`. */
  path: string;
  message: string;
}

/**
 * Stable problem types (RFC 9457). The slug is the contract; `docs/errors.md` lists them.
 */
export const ProblemTypes = {
  validation: { slug: 'validation-error', title: 'The request is invalid', status: 400 },
  malformedBody: { slug: 'malformed-body', title: 'The request body is not valid JSON', status: 400 },
  unauthorized: { slug: 'unauthorized', title: 'Authentication is required', status: 401 },
  forbidden: { slug: 'forbidden', title: 'Access to this resource is not allowed', status: 403 },
  notFound: { slug: 'not-found', title: 'The resource does not exist', status: 404 },
  conflict: { slug: 'conflict', title: 'The request conflicts with the current state', status: 409 },
  payloadTooLarge: { slug: 'payload-too-large', title: 'The request body is too large', status: 413 },
  unsupportedMediaType: { slug: 'unsupported-media-type', title: 'The content type is not supported', status: 415 },
  unprocessable: { slug: 'unprocessable', title: 'The request cannot be processed', status: 422 },
  rateLimited: { slug: 'rate-limited', title: 'Too many requests', status: 429 },
  headersTooLarge: { slug: 'headers-too-large', title: 'The request line or headers are too large', status: 431 },
  methodNotAllowed: { slug: 'method-not-allowed', title: 'The method is not allowed on this resource', status: 405 },
  idempotencyKeyReused: {
    slug: 'idempotency-key-reused',
    title: 'The Idempotency-Key was used for another request',
    status: 422,
  },
  idempotencyInProgress: {
    slug: 'idempotency-request-in-progress',
    title: 'A request with this Idempotency-Key is still being processed',
    status: 409,
  },
  internal: { slug: 'internal-error', title: 'Internal error', status: 500 },
  unavailable: { slug: 'service-unavailable', title: 'The service is temporarily unavailable', status: 503 },
} as const;
export type ProblemKind = keyof typeof ProblemTypes;

export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: FieldError[];
  [extension: string]: unknown;
}

export function problemTypeUri(kind: ProblemKind): string {
  return `/problems/${ProblemTypes[kind].slug}`;
}

export class ProblemException extends Error {
  constructor(
    readonly kind: ProblemKind,
    readonly detail: string,
    readonly errors?: FieldError[],
    readonly extensions: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }

  toDocument(instance?: string): ProblemDocument {
    const t = ProblemTypes[this.kind];
    // Extensions never override the standard members.
    return {
      ...this.extensions,
      type: problemTypeUri(this.kind),
      title: t.title,
      status: t.status,
      detail: this.detail,
      ...(instance ? { instance } : {}),
      ...(this.errors && this.errors.length > 0 ? { errors: this.errors } : {}),
    };
  }
}

const STATUS_TO_KIND: Partial<Record<number, ProblemKind>> = {
  400: 'validation',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'notFound',
  405: 'methodNotAllowed',
  409: 'conflict',
  413: 'payloadTooLarge',
  415: 'unsupportedMediaType',
  422: 'unprocessable',
  429: 'rateLimited',
  503: 'unavailable',
};

/**
/**
 * Fastify's own body errors reach the filter as plain 400 HttpExceptions (Nest maps them), so the
 * only way to tell "not JSON" from other 400s is the message Fastify and Nest's parser give.
 */
const UNPARSABLE_BODY = /JSON|body/i;

/**
 * A response decided before the handler ran (an idempotent replay): sent as it is, with its own
 * status, headers and body. Thrown, because an interceptor cannot otherwise change the status
 * Nest gives the route.
 */
export class VerbatimResponse extends Error {
  constructor(
    readonly status: number,
    readonly headers: Record<string, string>,
    readonly body: string,
  ) {
    super(`verbatim ${status} response`);
  }
}

/**
 * Turns an error of the HTTP stack (Nest or Fastify) into a problem, without leaking internals:
 * only our own ProblemExceptions and the framework's HTTP errors keep their detail; anything else
 * (a TypeORM, pg, kafkajs or plain Error) is an internal error with a generic text.
 */
export function toProblem(error: unknown): ProblemException {
  if (error instanceof ProblemException) return error;
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const kind = STATUS_TO_KIND[status];
    if (kind) {
      const response = error.getResponse();
      const message =
        typeof response === 'object' && response !== null && 'message' in response
          ? String((response as { message: unknown }).message)
          : error.message;
      switch (kind) {
        case 'notFound':
          return new ProblemException(kind, 'No such resource.');
        case 'payloadTooLarge':
          return new ProblemException(kind, 'The request body exceeds the size limit.');
        case 'unsupportedMediaType':
          return new ProblemException(kind, 'Send the body as application/json.');
        case 'validation':
          if (UNPARSABLE_BODY.test(message))
            return new ProblemException('malformedBody', 'The request body could not be parsed as JSON.');
          return new ProblemException(kind, message);
        default:
          return new ProblemException(kind, message);
      }
    }
  }
  const fastify = error as { statusCode?: number; code?: string; message?: string };
  if (typeof fastify?.code === 'string' && fastify.code.startsWith('FST_')) {
    if (fastify.statusCode === 413)
      return new ProblemException('payloadTooLarge', 'The request body exceeds the size limit.');
    if (fastify.statusCode === 415)
      return new ProblemException('unsupportedMediaType', 'Send the body as application/json.');
    if (fastify.statusCode === 400)
      return new ProblemException('malformedBody', 'The request body could not be parsed as JSON.');
  }
  // The database or broker is unreachable for a moment (a restart, no free connection slot): the
  // request is sound, so it is a 503 to retry, not a 500 that says something is broken.
  if (isInfrastructureFault(error))
    return new ProblemException(
      'unavailable',
      'A database or broker this service needs is unreachable for a moment; retry the request (with the same Idempotency-Key).',
    );
  return new ProblemException(
    'internal',
    'An internal error occurred. It has been logged under the traceId of this answer; retry later.',
  );
}

export interface RegisteredRoute {
  method: string;
  /** Fastify's pattern, e.g. `/order/:orderId`. */
  url: string;
}

/**
 * Every route Fastify registered, as it registered it: the 405 answer needs to know which methods
 * a path has, and the OpenAPI and isolation tests check every route, including ones added later.
 */
export class RouteRegistry {
  private readonly entries: { route: RegisteredRoute; pattern: RegExp }[] = [];

  add(method: string, url: string): void {
    const source = url
      .split('/')
      .map((segment) =>
        segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
      )
      .join('/');
    this.entries.push({ route: { method: method.toUpperCase(), url }, pattern: new RegExp(`^${source}/?$`) });
  }

  routes(): RegisteredRoute[] {
    return this.entries.map((e) => e.route);
  }

  /** The methods the path answers to; empty when no route has this path. */
  methodsOf(path: string): string[] {
    const methods = new Set(this.entries.filter((e) => e.pattern.test(path)).map((e) => e.route.method));
    return [...methods].sort();
  }
}

@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');

  constructor(private readonly routes?: RouteRegistry) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<{ method?: string; url?: string }>();
    const reply = http.getResponse<
      {
        status(code: number): unknown;
        header(name: string, value: string): unknown;
        send(body: string): unknown;
      } & Record<string, unknown>
    >();
    if (error instanceof VerbatimResponse) {
      reply.status(error.status);
      for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
      reply.send(error.body);
      return;
    }
    const problem = this.methodNotAllowed(error, request) ?? toProblem(error);
    const doc = problem.toDocument();
    if (doc.status >= 500) {
      // The merchant gets only the trace id; the operator finds the cause under it in the log.
      const traceId = randomUUID();
      doc.traceId = traceId;
      const cause =
        error instanceof ProblemException
          ? `${problem.kind}: ${problem.detail}`
          : error instanceof Error
            ? (error.stack ?? error.message)
            : String(error);
      this.logger.error(`${request.method} ${pathOf(request.url)} failed [traceId=${traceId}]: ${cause}`);
    }
    reply.status(doc.status);
    reply.header('content-type', 'application/problem+json');
    for (const [name, value] of Object.entries(problem.headers)) reply.header(name, value);
    reply.send(JSON.stringify(doc));
  }

  /** Fastify answers a known path with an unknown method as not found; HTTP says 405 with Allow. */
  private methodNotAllowed(error: unknown, request: { method?: string; url?: string }): ProblemException | undefined {
    if (!this.routes || error instanceof ProblemException || !(error instanceof NotFoundException)) return undefined;
    const allowed = this.routes.methodsOf(pathOf(request.url));
    if (allowed.length === 0 || allowed.includes(String(request.method).toUpperCase())) return undefined;
    return new ProblemException(
      'methodNotAllowed',
      `${request.method} is not allowed here; use ${allowed.join(', ')}.`,
      undefined,
      {},
      { allow: allowed.join(', ') },
    );
  }
}

/** The path without the query string: queries may carry values that do not belong in a log. */
function pathOf(url: string | undefined): string {
  return (url ?? '').split('?')[0];
}

/**
 * `parent.member`, `parent[0]`, or `parent["odd name"]` for a member that is not an identifier (an
 * empty name, a dot, a space): the path always names the field, whatever a client sent.
 */
export function jsonPath(parent: string, member: string): string {
  if (/^\d+$/.test(member)) return `${parent}[${member}]`;
  if (/^[A-Za-z_$][\w$]*$/.test(member)) return parent ? `${parent}.${member}` : member;
  return `${parent}[${JSON.stringify(member)}]`;
}

/** Flattens class-validator's nested errors into JSON paths, one entry per failed constraint. */
export function fieldErrors(errors: ValidationError[], parent = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const e of errors) {
    const path = jsonPath(parent, e.property);
    for (const message of Object.values(e.constraints ?? {})) out.push({ path, message });
    if (e.children && e.children.length > 0) out.push(...fieldErrors(e.children, path));
  }
  return out;
}

/** Whitelisting validation: an unknown field is an error, named by its path. */
export function strictValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => {
      const list = fieldErrors(errors);
      const detail =
        list.length === 1 ? `${list[0].path}: ${list[0].message}` : `${list.length} fields are invalid; see errors.`;
      return new ProblemException('validation', detail, list);
    },
  });
}

export { HttpStatus };
