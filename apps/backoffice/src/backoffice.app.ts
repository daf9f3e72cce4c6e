import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import { buildOpenApiDocument } from '@payments/merchant-admin';
import { startKafkaMetrics } from '@payments/messaging';
import {
  boundPort,
  createHttpApp,
  createLogger,
  installProblemHandling,
  strictValidationPipe,
} from '@payments/platform';
import { BackofficeModule } from './backoffice.module';
import { BackofficeConfig } from './config';

export interface RunningBackoffice {
  app: NestFastifyApplication;
  port: number;
  url: string;
  close(): Promise<void>;
}

/** The operators' service: /ops/v1, the console at /ops/console, /docs and the probes (decision 260). */
export async function startBackoffice(
  config: BackofficeConfig,
  httpPort: number,
  host = '127.0.0.1',
): Promise<RunningBackoffice> {
  const app = await createHttpApp(BackofficeModule.register(config), {
    logger: createLogger('backoffice', config),
    metricsEnabled: config.metricsEnabled,
  });
  installProblemHandling(app);
  app.useGlobalPipes(strictValidationPipe());
  SwaggerModule.setup('docs', app, buildOpenApiDocument(app, 'operator'), { jsonDocumentUrl: 'docs/openapi.json' });
  // The system's Kafka collector (lag, dead letters) runs here, elected among the backoffice's instances.
  if (config.metricsEnabled)
    await startKafkaMetrics(app, {
      kafka: config.kafka,
      databaseUrl: config.databaseUrl,
      intervalMs: config.kafkaMetricsIntervalMs,
      groups: config.kafkaMetricsGroups,
    });
  await app.listen(httpPort, host);
  const port = boundPort(app);
  return { app, port, url: `http://127.0.0.1:${port}`, close: () => app.close() };
}
