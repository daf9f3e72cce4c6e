import { ReplyTopics, serviceCommandTopics, Topics } from '@payments/contracts';
import { KafkaTransport, listenWithKafka } from '@payments/messaging';
import { boundPort, createHttpApp, createLogger } from '@payments/platform';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { LedgerConfig } from './config';
import { LedgerModule, LedgerModuleOptions } from './ledger.module';

export interface RunningLedger {
  app: NestFastifyApplication;
  transport: KafkaTransport;
  port: number;
  close(): Promise<void>;
}

/**
 * Starts the ledger: migrations, the `orders.events`, `payouts.events` and `p2p.events` consumers, the payouts
 * service's hold requests on `ledger.commands`, operators' settings on `ledger.ops-commands`, the
 * settlement sweep and /health.
 */
export async function startLedger(
  config: LedgerConfig,
  httpPort: number,
  host = '127.0.0.1',
  opts: LedgerModuleOptions = {},
): Promise<RunningLedger> {
  const logger = createLogger('ledger', config);
  const app = await createHttpApp(LedgerModule.register(config, opts), {
    logger,
    metricsEnabled: config.metricsEnabled,
  });
  const transport = await listenWithKafka(
    app,
    {
      kafka: config.kafka,
      groupId: config.consumerGroup,
      stallMs: config.health.stallMs,
      topics: [
        Topics.ordersEvents,
        Topics.payoutsEvents,
        // P2P fees (decision 312).
        Topics.p2pEvents,
        Topics.ledgerCommands,
        ...serviceCommandTopics('ledger'),
      ],
      // The backoffice's: operators' settings on ledger.ops-commands (decision 303).
      replyTopics: [ReplyTopics.payouts, ReplyTopics.orders, ReplyTopics.gateway, ReplyTopics.backoffice],
    },
    httpPort,
    host,
  );
  return { app, transport, port: boundPort(app), close: () => app.close() };
}
