import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Topics } from '@payments/contracts';
import { KafkaTransport, RethrowRpcErrors } from '@payments/messaging';
import { boundPort, createHttpApp, createLogger, installProblemHandling } from '@payments/platform';
import { MerchantCallbacksConfig } from './config';
import { MerchantCallbacksModule, MerchantCallbacksModuleOptions } from './merchant-callbacks.module';

export interface RunningMerchantCallbacks {
  app: NestFastifyApplication;
  transport: KafkaTransport;
  port: number;
  close(): Promise<void>;
}

/** Starts merchant-callbacks: migrations, the consumers, the delivery worker and /health. */
export async function startMerchantCallbacks(
  config: MerchantCallbacksConfig,
  httpPort: number,
  opts: MerchantCallbacksModuleOptions = {},
  host = '127.0.0.1',
): Promise<RunningMerchantCallbacks> {
  const logger = createLogger('merchant-callbacks', config);
  const app = await createHttpApp(MerchantCallbacksModule.register(config, opts), { logger });
  const transport = new KafkaTransport({
    kafka: config.kafka,
    groupId: config.consumerGroup,
    topics: [
      Topics.ordersEvents,
      Topics.payoutsEvents,
      Topics.p2pEvents,
      Topics.shopsSettings,
      Topics.merchantCallbacksCommands,
    ],
  });
  installProblemHandling(app);
  const microservice = app.connectMicroservice(
    { strategy: transport },
    { inheritAppConfig: false, deferInitialization: true },
  );
  microservice.useGlobalFilters(new RethrowRpcErrors());
  await app.startAllMicroservices();
  await app.listen(httpPort, host);
  await transport.whenJoined();
  return { app, transport, port: boundPort(app), close: () => app.close() };
}
