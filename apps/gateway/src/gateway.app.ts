import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import { startKafkaMetrics } from '@payments/messaging';
import {
  boundPort,
  createHttpApp,
  createLogger,
  installProblemHandling,
  strictValidationPipe,
} from '@payments/platform';
import { GatewayConfig } from './config';
import { GatewayModule } from './gateway.module';
import { buildOpenApiDocument } from './openapi/openapi.document';
import { documentIdempotencyKey } from './idempotency/idempotency.openapi';
import { closeServer, listenForOperators, separateOperatorSurface, serverPort } from './operator-listener';

export interface RunningGateway {
  app: NestFastifyApplication;
  port: number;
  url: string;
  /** The operators' own listener: /ops/v1 and the console (never on `port`). */
  opsPort: number;
  opsUrl: string;
  close(): Promise<void>;
}

export async function startGateway(
  config: GatewayConfig,
  httpPort: number,
  host = '127.0.0.1',
  opsHttpPort = 0,
): Promise<RunningGateway> {
  const app = await createHttpApp(GatewayModule.register(config), {
    logger: createLogger('gateway', config),
    bodyLimitBytes: config.bodyLimitBytes,
    metricsEnabled: config.metricsEnabled,
  });
  installProblemHandling(app);
  separateOperatorSurface(app);
  app.useGlobalPipes(strictValidationPipe());
  SwaggerModule.setup('docs', app, documentIdempotencyKey(buildOpenApiDocument(app)), {
    jsonDocumentUrl: 'docs/openapi.json',
  });
  // The gateway is always up: it runs the system's Kafka collector (lag, dead letters), elected among its instances.
  if (config.metricsEnabled)
    await startKafkaMetrics(app, {
      kafka: config.kafka,
      databaseUrl: config.databaseUrl,
      intervalMs: config.kafkaMetricsIntervalMs,
      groups: config.kafkaMetricsGroups,
    });
  await app.listen(httpPort, host);
  const port = boundPort(app);
  const opsServer = await listenForOperators(app, opsHttpPort, host);
  const opsPort = serverPort(opsServer);
  return {
    app,
    port,
    url: `http://127.0.0.1:${port}`,
    opsPort,
    opsUrl: `http://127.0.0.1:${opsPort}`,
    close: async () => {
      await closeServer(opsServer);
      await app.close();
    },
  };
}
