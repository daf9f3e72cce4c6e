import { INestApplication, LoggerService, UnsupportedMediaTypeException } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { ProblemFilter, RegisteredRoute, RouteRegistry } from './problem';

export interface HttpAppOptions {
  logger: LoggerService;
  bodyLimitBytes?: number;
}

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json\s*(;|$)/i;

/** A Fastify-backed Nest app; raw bodies are kept for signature checks. */
export async function createHttpApp(module: unknown, opts: HttpAppOptions): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({ bodyLimit: opts.bodyLimitBytes ?? 64 * 1024, trustProxy: true });
  // Fastify parses text/plain (and Nest adds form bodies) by default: such a body would reach the
  // validation pipe as a string and answer a confusing 400. Every body we take is JSON, so any
  // other type is refused as 415 before parsing.
  adapter.getInstance().addHook('onRequest', async (request) => {
    const hasBody = Number(request.headers['content-length'] ?? 0) > 0 || request.headers['transfer-encoding'] !== undefined;
    if (hasBody && !JSON_MEDIA_TYPE.test(request.headers['content-type'] ?? '')) throw new UnsupportedMediaTypeException();
  });
  return NestFactory.create<NestFastifyApplication>(module as never, adapter, {
    logger: opts.logger,
    rawBody: true,
    bufferLogs: false,
  });
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
  app.getHttpAdapter().getInstance().addHook('onRoute', (route) => {
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
