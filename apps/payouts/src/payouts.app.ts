import { Topics } from '@payments/contracts';
import { KafkaTransport, OutboxRelayService, RethrowRpcErrors } from '@payments/messaging';
import { boundPort, createHttpApp, createLogger, installProblemHandling } from '@payments/platform';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { PayoutsConfig } from './config';
import { PayoutDispatcher } from './dispatch-payout/payout-dispatcher.service';
import { PayoutsModule, PayoutsModuleOptions } from './payouts.module';

export interface RunningPayouts {
  app: NestFastifyApplication;
  transport: KafkaTransport;
  relay: OutboxRelayService;
  dispatcher: PayoutDispatcher;
  port: number;
  close(): Promise<void>;
}

/** Starts the payouts service: migrations, the outbox relay, the dispatcher, the Kafka consumers and /health. */
export async function startPayouts(
  config: PayoutsConfig,
  httpPort: number,
  opts: PayoutsModuleOptions = {},
  host = '127.0.0.1',
): Promise<RunningPayouts> {
  const logger = createLogger('payouts', config);
  const app = await createHttpApp(PayoutsModule.register(config, opts), { logger });
  const transport = new KafkaTransport({
    kafka: config.kafka,
    groupId: config.consumerGroup,
    topics: [Topics.payoutsCommands, Topics.providerEvents],
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
  return {
    app,
    transport,
    relay: app.get(OutboxRelayService),
    dispatcher: app.get(PayoutDispatcher),
    port: boundPort(app),
    close: () => app.close(),
  };
}
