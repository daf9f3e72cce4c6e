import { INestApplication, LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import helmet from '@fastify/helmet';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import { perAppLogger } from './logging';
import { installMetrics } from './metrics';
import { FieldError, jsonPath, ProblemException, ProblemFilter, RegisteredRoute, RouteRegistry } from './problem';

export const DEFAULT_BODY_LIMIT_BYTES = 64 * 1024;

/** proxy-addr's names: 127.0.0.0/8 and ::1; 169.254.0.0/16 and fe80::/10; 10/8, 172.16/12, 192.168/16 and fc00::/7. */
export const TRUSTED_PROXIES = 'loopback,linklocal,uniquelocal';

export interface HttpAppOptions {
  logger: LoggerService;
  bodyLimitBytes?: number;
  /** `/metrics` and the collection behind it (METRICS_ENABLED); on unless switched off. */
  metricsEnabled?: boolean;
  /**
   * HTML forms (`application/x-www-form-urlencoded`, flat string fields) besides JSON: only the
   * hosted pages of apps/checkout, whose forms work without JavaScript — or, given a test of the
   * request's URL, only there (Click posts its Prepare and Complete as forms to callbacks-ingest).
   */
  forms?: boolean | ((url: string) => boolean);
}

/** A Fastify-backed Nest app with `/metrics`; raw bodies are kept for signature checks. */
export async function createHttpApp(module: unknown, opts: HttpAppOptions): Promise<NestFastifyApplication> {
  const bodyLimit = opts.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const adapter = new FastifyAdapter({
    bodyLimit,
    clientErrorHandler,
    // X-Forwarded-For / -Proto are believed only from proxies on loopback and private networks (the
    // ingress controller); from anyone else the client could pick its own address and walk around
    // the per-address failed-authentication throttle.
    trustProxy: TRUSTED_PROXIES,
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
    // Each app's classes log under its own name, also beside other apps in one process (decision 346).
    logger: perAppLogger(opts.logger),
    rawBody: true,
    bufferLogs: false,
    // A module that fails to start (the database is unreachable) throws to the caller: each main
    // logs and exits, and a test stack fails its own test instead of ending the jest worker.
    abortOnError: false,
  });
  await app.register(helmet as never, SECURITY_HEADERS);
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onRequest', transportHeaders);
  fastify.addHook('onRequest', bodyGate(bodyLimit, opts.forms ?? false));
  // Nest's Fastify adapter parses forms (@fastify/formbody); the gate lets them through only here.
  fastify.addHook('preValidation', bodyContentGate(MAX_BODY_DEPTH));
  if (opts.metricsEnabled ?? true) installMetrics(app);
  return app;
}

/**
 * Headers of every answer of every app: no MIME sniffing, no framing, and a policy that lets a
 * page load only its own scripts. The only HTML served is Swagger UI at /docs: its scripts and
 * styles are files of the same origin, it sets inline styles and draws its logo from data: URLs.
 * No upgrade-insecure-requests: /docs is opened over plain http on a developer's machine.
 */
const SECURITY_HEADERS = {
  global: true,
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      objectSrc: ["'none'"],
      baseUri: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
  },
  frameguard: { action: 'deny' as const },
  // Sent by transportHeaders, only where the client came over https.
  strictTransportSecurity: false,
};

const HSTS = 'max-age=31536000; includeSubDomains';

/**
 * HSTS only on https (TLS ends at the ingress, which says so in X-Forwarded-Proto; trustProxy is on).
 * No answer may be stored by a cache: some show a one-time API key or callback secret, the others
 * a shop's payments.
 */
function transportHeaders(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  void reply.header('cache-control', 'no-store');
  if (request.protocol === 'https') void reply.header('strict-transport-security', HSTS);
  done();
}

/**
 * What Node's HTTP parser refuses before Fastify sees a request (headers, or a request line, over
 * 16 KiB; a malformed request) was Fastify's own JSON. A problem instead, naming nothing of the
 * request: a path of 100 kB was echoed whole.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  // Node's own guard (lib/_http_server.js): after a reset there is no one to answer, and once a
  // response is in flight on the socket a raw answer would be spliced into it.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (error.code === 'ECONNRESET' || inFlight || !socket.writable) {
    socket.destroy();
    return;
  }
  const problem =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new ProblemException('headersTooLarge', 'The request line and headers must be at most 16 KiB.')
      : new ProblemException('validation', 'The request is not valid HTTP.', [
          { path: 'request', message: 'is not valid HTTP' },
        ]);
  const body = JSON.stringify(problem.toDocument());
  const status = problem.toDocument().status;
  socket.end(
    `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
      `Content-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Connection: close\r\n\r\n${body}`,
  );
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

interface Frame {
  /** Member names seen so far; undefined for an array. */
  names?: Set<string>;
  path: string;
  /** The member whose value comes next (objects) or the index of the next element (arrays). */
  member?: string;
  index: number;
}

/**
 * The first member name that appears twice in one object of a JSON text already known to be valid.
 * JSON.parse keeps the last (`cost` 1.00 then 1000.00 stored 1000.00), so what a merchant's
 * signature or log shows could differ from what we store: such a body is refused.
 */
export function duplicateMemberAt(raw: string): FieldError | undefined {
  const stack: Frame[] = [];
  let expectName = false;
  const childPath = (): string => {
    const top = stack[stack.length - 1];
    if (!top) return '';
    return top.names ? jsonPath(top.path, top.member ?? '') : jsonPath(top.path, String(top.index));
  };
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === '"') {
      let j = i + 1;
      while (raw[j] !== '"') j += raw[j] === '\\' ? 2 : 1;
      const top = stack[stack.length - 1];
      if (expectName && top?.names) {
        const name = JSON.parse(raw.slice(i, j + 1)) as string;
        if (top.names.has(name)) return { path: jsonPath(top.path, name), message: 'appears more than once' };
        top.names.add(name);
        top.member = name;
        expectName = false;
      }
      i = j;
    } else if (c === '{') {
      stack.push({ names: new Set(), path: childPath(), index: 0 });
      expectName = true;
    } else if (c === '[') {
      stack.push({ path: childPath(), index: 0 });
    } else if (c === '}' || c === ']') {
      stack.pop();
    } else if (c === ',') {
      const top = stack[stack.length - 1];
      if (top?.names) expectName = true;
      else if (top) top.index += 1;
    }
  }
  return undefined;
}

function bodyContentGate(max: number) {
  return (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    const raw = (request as { rawBody?: Buffer | string }).rawBody;
    const error =
      unacceptableAt(request.body, max) ??
      (raw !== undefined && typeof request.body === 'object' && request.body !== null
        ? duplicateMemberAt(raw.toString())
        : undefined);
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
const FORM_CONTENT_TYPE = /^application\/x-www-form-urlencoded\s*(;|$)/i;

export function bodyGate(limitBytes: number, forms: boolean | ((url: string) => boolean) = false) {
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
    const formsHere = typeof forms === 'function' ? forms(request.url) : forms;
    if (!type || !(JSON_CONTENT_TYPE.test(type) || (formsHere && FORM_CONTENT_TYPE.test(type)))) {
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
