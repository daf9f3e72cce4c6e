import { INestApplication, LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { installMetrics } from './metrics';
import { FieldError, jsonPath, ProblemException, ProblemFilter, RegisteredRoute, RouteRegistry } from './problem';

export const DEFAULT_BODY_LIMIT_BYTES = 64 * 1024;

export interface HttpAppOptions {
  logger: LoggerService;
  bodyLimitBytes?: number;
  /** `/metrics` and the collection behind it (METRICS_ENABLED); on unless switched off. */
  metricsEnabled?: boolean;
}

/** A Fastify-backed Nest app with `/metrics`; raw bodies are kept for signature checks. */
export async function createHttpApp(module: unknown, opts: HttpAppOptions): Promise<NestFastifyApplication> {
  const bodyLimit = opts.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const adapter = new FastifyAdapter({
    bodyLimit,
    trustProxy: true,
    // Fastify's router refuses a path with bad percent-encoding or a parameter over 100 characters
    // before any Nest filter runs; it answered its own JSON (found by the OpenAPI fuzzer).
    frameworkErrors: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) =>
      sendProblem(
        reply,
        new ProblemException('validation', `The path is invalid: ${error.message.slice(0, 200)}`, [
          {
            path: 'url',
            message:
              error.code === 'FST_ERR_MAX_PARAM_LENGTH'
                ? 'has a path parameter longer than 100 characters'
                : 'is not a valid URL',
          },
        ]),
      ),
  });
  const app = await NestFactory.create<NestFastifyApplication>(module as never, adapter, {
    logger: opts.logger,
    rawBody: true,
    bufferLogs: false,
  });
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onRequest', bodyGate(bodyLimit));
  fastify.addHook('preValidation', bodyContentGate(MAX_BODY_DEPTH));
  if (opts.metricsEnabled ?? true) installMetrics(app);
  return app;
}

/** No request of any API nests deeper than a few levels; 32 leaves room and stops recursion attacks. */
export const MAX_BODY_DEPTH = 32;

/**
 * The first field of a parsed body that no API accepts, walked iteratively: nesting deeper than
 * `max` (class-transformer and class-validator recursed into 3,000 levels and overflowed: a 500),
 * and text PostgreSQL cannot store (NUL, a lone UTF-16 surrogate: a 500 at the insert). Both were
 * found by the OpenAPI fuzzer.
 */
export function unacceptableAt(value: unknown, max: number): FieldError | undefined {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value: v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      if (UNSTORABLE_TEXT.test(v))
        return { path: path || '(body)', message: 'must be text without NUL characters or lone surrogates' };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= max) return { path: path || '(body)', message: `is nested deeper than ${max} levels` };
    for (const [key, child] of Object.entries(v as Record<string, unknown>)) {
      if (UNSTORABLE_TEXT.test(key))
        return { path: path || '(body)', message: 'has a member name that is not valid text' };
      stack.push({ value: child, path: jsonPath(path, key), depth: depth + 1 });
    }
  }
  return undefined;
}

const UNSTORABLE_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function bodyContentGate(max: number) {
  return (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    const error = unacceptableAt(request.body, max);
    if (error === undefined) return done();
    sendProblem(reply, new ProblemException('validation', `${error.path}: ${error.message}`, [error]));
  };
}

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);
/** application/json (or a +json type), with or without parameters (charset): what the apps parse. */
const JSON_CONTENT_TYPE = /^application\/([\w.-]+\+)?json\s*(;|$)/i;

/** Whether a request carries a body, judged from its headers before any of it is read. */
export function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && length !== '0';
}

/**
 * Refuses, before reading it, a body that is too large (by Content-Length) or not JSON. Fastify
 * itself would parse text/plain and end it as a confusing 400; a merchant sending a form or plain
 * text needs to be told the accepted type. A chunked body over the limit is still cut off by
 * Fastify's own limit while it is read (413 through the problem filter).
 */
export function bodyGate(limitBytes: number) {
  return (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    const headers = request.headers;
    if (!METHODS_WITH_BODY.has(request.method) || !hasBody(headers)) return done();
    const length = Number(headers['content-length']);
    if (Number.isFinite(length) && length > limitBytes) {
      return sendProblem(
        reply,
        new ProblemException(
          'payloadTooLarge',
          `The request body exceeds the limit of ${limitBytes} bytes.`,
          undefined,
          { limitBytes },
        ),
      );
    }
    const type = headers['content-type'];
    if (!type || !JSON_CONTENT_TYPE.test(type)) {
      return sendProblem(
        reply,
        new ProblemException(
          'unsupportedMediaType',
          `Send the body as application/json${type ? `, not ${type.split(';')[0].trim().slice(0, 100)}` : ' (no Content-Type was given)'}.`,
          undefined,
          { accepted: ['application/json'] },
          { 'accept-post': 'application/json', 'accept-patch': 'application/json' },
        ),
      );
    }
    done();
  };
}

function sendProblem(reply: FastifyReply, problem: ProblemException): void {
  const doc = problem.toDocument();
  void reply
    .code(doc.status)
    .headers({ ...problem.headers, 'content-type': 'application/problem+json' })
    .send(JSON.stringify(doc));
}

/** The port the app listens on, once listening (tests use port 0). */
export function boundPort(app: INestApplication): number {
  const address = app.getHttpServer().address();
  return typeof address === 'object' && address ? address.port : Number(address);
}

const registries = new WeakMap<object, RouteRegistry>();

/**
 * Every error of every route, Nest's or Fastify's (body too large, wrong content type, bad JSON,
 * no such route, a method the path does not have), leaves as application/problem+json: Nest routes
 * Fastify's errors and its 404 through the global filters. Call it before `listen`: the route
 * registry learns routes as Fastify registers them.
 */
export function installProblemHandling(app: NestFastifyApplication): void {
  const registry = new RouteRegistry();
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onRoute', (route) => {
      for (const method of Array.isArray(route.method) ? route.method : [route.method]) registry.add(method, route.url);
    });
  registries.set(app, registry);
  app.useGlobalFilters(new ProblemFilter(registry));
}

/** The routes the app registered (HEAD included, as Fastify adds it for every GET). */
export function registeredRoutes(app: INestApplication): RegisteredRoute[] {
  const registry = registries.get(app);
  if (!registry) throw new Error('installProblemHandling was not called on this app');
  return registry.routes();
}
