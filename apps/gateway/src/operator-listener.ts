import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { clientErrorHandler, ProblemException } from '@payments/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo, Socket } from 'node:net';

/** Marks a request that came in on the operators' listener (set by its server, never by a header). */
const FROM_OPERATOR_LISTENER = Symbol('fromOperatorListener');

type Marked = IncomingMessage & { [FROM_OPERATOR_LISTENER]?: true };

/** The operator surface: the API and the console. */
export function isOperatorPath(url: string): boolean {
  return /^\/ops(\/|\?|$)/.test(url);
}

/** Also answered on the operators' listener: its API document and the probes. */
function sharedPath(url: string): boolean {
  return /^\/(docs|health)(\/|\?|$)/.test(url);
}

/**
 * The paths a request is judged by (decision 176): the matched route's pattern when a route matched
 * (the router decodes percent-escapes, so `/%6Fps/v1/me` matches `/ops/v1/me`), and the raw path
 * decoded, its repeated slashes collapsed and lower-cased, so no spelling of /ops slips past
 * either way (a wildcard route, say, matches anything).
 */
export function routedPaths(request: Pick<FastifyRequest, 'url' | 'is404' | 'routeOptions'>): string[] {
  const raw = request.url.split('?')[0] ?? '';
  let decoded = raw;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    // A malformed escape: judge the raw path.
  }
  const normalised = decoded.replace(/\/{2,}/g, '/').toLowerCase();
  const pattern = request.is404 ? undefined : request.routeOptions.url;
  return pattern ? [pattern, normalised] : [normalised];
}

/**
 * One app, two listeners (issue 15 item 2, decision 152): the merchant port never answers the
 * operator surface, the operators' port answers only it (plus /docs and /health). Either refuses
 * the other's paths with the same 404 problem as a path that does not exist, so the merchant host
 * does not even tell that /ops exists.
 */
export function separateOperatorSurface(app: NestFastifyApplication): void {
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      // An injected request (the console reading /ops/v1 for its page) never crossed a listener.
      if (!(request.raw.socket instanceof Socket)) return done();
      const fromOperators = (request.raw as Marked)[FROM_OPERATOR_LISTENER] === true;
      const paths = routedPaths(request);
      const operatorPath = paths.some(isOperatorPath);
      if (fromOperators ? operatorPath || sharedPath(paths[0]) : !operatorPath) return done();
      const doc = new ProblemException('notFound', 'No such resource.').toDocument();
      void reply
        .code(404)
        .header('content-type', 'application/problem+json')
        .header('cache-control', 'no-store')
        .send(JSON.stringify(doc));
    });
}

/** Starts the operators' listener: its own server, handing requests to the same Fastify router. */
export async function listenForOperators(app: NestFastifyApplication, port: number, host: string): Promise<Server> {
  const fastify = app.getHttpAdapter().getInstance();
  const server = createServer((request, response) => {
    (request as Marked)[FROM_OPERATOR_LISTENER] = true;
    fastify.routing(request, response);
  });
  server.on('clientError', clientErrorHandler);
  server.keepAliveTimeout = fastify.server.keepAliveTimeout;
  server.requestTimeout = fastify.server.requestTimeout;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

export function serverPort(server: Server): number {
  return (server.address() as AddressInfo).port;
}

export async function closeServer(server: Server): Promise<void> {
  server.closeIdleConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
