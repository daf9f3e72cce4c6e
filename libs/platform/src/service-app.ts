import { INestApplication, LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { ProblemFilter } from './problem';

export interface HttpAppOptions {
  logger: LoggerService;
  bodyLimitBytes?: number;
}

/** A Fastify-backed Nest app; raw bodies are kept for signature checks. */
export async function createHttpApp(module: unknown, opts: HttpAppOptions): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({ bodyLimit: opts.bodyLimitBytes ?? 64 * 1024, trustProxy: true });
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

/**
 * Every error of every route, Nest's or Fastify's (body too large, wrong content type, bad JSON,
 * no such route), leaves as application/problem+json: Nest routes Fastify's errors and its 404
 * through the global filters.
 */
export function installProblemHandling(app: NestFastifyApplication): void {
  app.useGlobalFilters(new ProblemFilter());
}
