import { Topics } from '@payments/contracts';
import { KafkaTransport, OutboxRelayService, RethrowRpcErrors } from '@payments/messaging';
import { boundPort, createHttpApp, createLogger, installProblemHandling } from '@payments/platform';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { P2pConfig } from './config';
import { P2pDispatcher } from './dispatch-p2p/p2p-dispatcher.service';
import { P2pModule, P2pModuleOptions } from './p2p.module';

export interface RunningP2p {
  app: NestFastifyApplication;
  transport: KafkaTransport;
  relay: OutboxRelayService;
  dispatcher: P2pDispatcher;
  port: number;
  close(): Promise<void>;
}

/** Starts the p2p service: migrations, the outbox relay, the dispatcher, the Kafka consumers and /health. */
export async function startP2p(
  config: P2pConfig,
  httpPort: number,
  opts: P2pModuleOptions = {},
  host = '127.0.0.1',
): Promise<RunningP2p> {
  const logger = createLogger('p2p', config);
  const app = await createHttpApp(P2pModule.register(config, opts), { logger });
  const transport = new KafkaTransport({
    kafka: config.kafka,
    groupId: config.consumerGroup,
    topics: [Topics.p2pCommands, Topics.providerEvents],
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
    dispatcher: app.get(P2pDispatcher),
    port: boundPort(app),
    close: () => app.close(),
  };
}
