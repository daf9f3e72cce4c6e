import { serviceCommandTopics } from '@payments/contracts';
import { KafkaTransport, listenWithKafka } from '@payments/messaging';
import { boundPort, createHttpApp, createLogger } from '@payments/platform';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { MethodsConfig } from './config';
import { MethodsModule, MethodsModuleOptions } from './methods.module';

export interface RunningMethods {
  app: NestFastifyApplication;
  transport: KafkaTransport;
  port: number;
  close(): Promise<void>;
}

/** Starts the methods service: migrations, the `methods.queries` consumer and /health. */
export async function startMethods(
  config: MethodsConfig,
  httpPort: number,
  host = '127.0.0.1',
  opts: MethodsModuleOptions = {},
): Promise<RunningMethods> {
  const logger = createLogger('methods', config);
  const app = await createHttpApp(MethodsModule.register(config, opts), {
    logger,
    metricsEnabled: config.metricsEnabled,
  });
  const transport = await listenWithKafka(
    app,
    {
      kafka: config.kafka,
      groupId: config.consumerGroup,
      stallMs: config.health.stallMs,
      // One topic per audience (decision 263): merchants, payers, operators.
      topics: serviceCommandTopics('methods'),
    },
    httpPort,
    host,
  );
  return { app, transport, port: boundPort(app), close: () => app.close() };
}
