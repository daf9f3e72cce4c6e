import { serviceCommandTopics, Topics } from '@payments/contracts';
import { KafkaTransport, listenWithKafka, OutboxRelayService } from '@payments/messaging';
import { boundPort, createHttpApp, createLogger } from '@payments/platform';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { OrdersConfig } from './config';
import { OrdersModule, OrdersModuleOptions } from './orders.module';

export interface RunningOrders {
  app: NestFastifyApplication;
  transport: KafkaTransport;
  relay: OutboxRelayService;
  port: number;
  close(): Promise<void>;
}

/** Starts the orders service: migrations, the outbox relay, the Kafka consumers and /health. */
export async function startOrders(
  config: OrdersConfig,
  httpPort: number,
  opts: OrdersModuleOptions = {},
  host = '127.0.0.1',
): Promise<RunningOrders> {
  const logger = createLogger('orders', config);
  const app = await createHttpApp(OrdersModule.register(config, opts), {
    logger,
    metricsEnabled: config.metricsEnabled,
  });
  const transport = await listenWithKafka(
    app,
    {
      kafka: config.kafka,
      groupId: config.consumerGroup,
      stallMs: config.health.stallMs,
      // One command topic per audience (decision 263).
      topics: [...serviceCommandTopics('orders'), Topics.providerEvents, Topics.shopsSettings],
    },
    httpPort,
    host,
  );
  return {
    app,
    transport,
    relay: app.get(OutboxRelayService),
    port: boundPort(app),
    close: () => app.close(),
  };
}
