import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import { buildOpenApiDocument } from '@payments/merchant-admin';
import {
  boundPort,
  createHttpApp,
  createLogger,
  installProblemHandling,
  strictValidationPipe,
} from '@payments/platform';
import { GatewayConfig } from './config';
import { GatewayModule } from './gateway.module';
import { documentIdempotencyKey } from './idempotency/idempotency.openapi';

export interface RunningGateway {
  app: NestFastifyApplication;
  port: number;
  url: string;
  close(): Promise<void>;
}

/** The merchant API: operators are served by the backoffice (apps/backoffice, decision 260). */
export async function startGateway(
  config: GatewayConfig,
  httpPort: number,
  host = '127.0.0.1',
): Promise<RunningGateway> {
  const app = await createHttpApp(GatewayModule.register(config), {
    logger: createLogger('gateway', config),
    bodyLimitBytes: config.bodyLimitBytes,
    metricsEnabled: config.metricsEnabled,
  });
  installProblemHandling(app);
  app.useGlobalPipes(strictValidationPipe());
  SwaggerModule.setup('docs', app, documentIdempotencyKey(buildOpenApiDocument(app, 'merchant')), {
    jsonDocumentUrl: 'docs/openapi.json',
  });
  await app.listen(httpPort, host);
  const port = boundPort(app);
  return { app, port, url: `http://127.0.0.1:${port}`, close: () => app.close() };
}
