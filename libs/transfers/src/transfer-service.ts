import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Topics } from '@payments/contracts';
import { KafkaTransport, listenWithKafka, OutboxRelayService } from '@payments/messaging';
import { boundPort, createHttpApp, createLogger } from '@payments/platform';
import type { TransferServiceConfig } from './transfer-config';
import { TransferDispatcher } from './transfer-dispatcher.service';
import type { TransferKindSpec } from './transfer-kind';
import { TransferModule, TransferModuleOptions } from './transfer.module';

export interface RunningTransferService {
  app: NestFastifyApplication;
  transport: KafkaTransport;
  relay: OutboxRelayService;
  dispatcher: TransferDispatcher;
  port: number;
  close(): Promise<void>;
}

/** Starts one transfer service: migrations, the outbox relay, the dispatcher, the Kafka consumers and /health. */
export async function startTransferService(
  kind: TransferKindSpec<any>,
  config: TransferServiceConfig,
  httpPort: number,
  options: TransferModuleOptions = {},
  host = '127.0.0.1',
): Promise<RunningTransferService> {
  const logger = createLogger(kind.service, config);
  const app = await createHttpApp(TransferModule.register({ kind, config, options }), {
    logger,
    metricsEnabled: config.metricsEnabled,
  });
  const transport = await listenWithKafka(
    app,
    {
      kafka: config.kafka,
      groupId: config.consumerGroup,
      stallMs: config.health.stallMs,
      topics: [...kind.topics.commands, Topics.providerEvents],
      replyTopics: kind.topics.replies,
    },
    httpPort,
    host,
  );
  return {
    app,
    transport,
    relay: app.get(OutboxRelayService),
    dispatcher: app.get(TransferDispatcher),
    port: boundPort(app),
    close: () => app.close(),
  };
}
