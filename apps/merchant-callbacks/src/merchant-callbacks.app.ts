import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ReplyTopics, serviceCommandTopics, Topics } from '@payments/contracts';
import { KafkaTransport, listenWithKafka } from '@payments/messaging';
import { boundPort, createHttpApp, createLogger } from '@payments/platform';
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
  const app = await createHttpApp(MerchantCallbacksModule.register(config, opts), {
    logger,
    metricsEnabled: config.metricsEnabled,
  });
  const transport = await listenWithKafka(
    app,
    {
      kafka: config.kafka,
      groupId: config.consumerGroup,
      stallMs: config.health.stallMs,
      // The gateway (the merchants' events feed) and the backoffice (operators' replays) ask.
      replyTopics: [ReplyTopics.gateway, ReplyTopics.backoffice],
      topics: [
        Topics.ordersEvents,
        Topics.payoutsEvents,
        Topics.p2pEvents,
        // The ledger's balance changes, for the events feed only (decision 314).
        Topics.ledgerEvents,
        Topics.shopsSettings,
        // One command topic per audience (decision 263): merchants' feed, operators' replays.
        ...serviceCommandTopics('merchant-callbacks'),
      ],
    },
    httpPort,
    host,
  );
  return { app, transport, port: boundPort(app), close: () => app.close() };
}
