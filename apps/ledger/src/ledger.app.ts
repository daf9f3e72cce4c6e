import { ReplyTopics, serviceCommandTopics, Topics } from '@payments/contracts';
import { CONSUMER_FETCH_LIMITS, KafkaTransport, listenWithKafkaConsumers } from '@payments/messaging';
import { boundPort, createHttpApp, createLogger } from '@payments/platform';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { LedgerConfig } from './config';
import { LedgerModule, LedgerModuleOptions } from './ledger.module';

export interface RunningLedger {
  app: NestFastifyApplication;
  /** Its two consumers: the commands it answers, and the events it books (decision 352). */
  transports: { commands: KafkaTransport; events: KafkaTransport };
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
  const kafka = config.kafka;
  const stallMs = config.health.stallMs;
  // Two consumers (decision 352). The commands are on someone's request path (a payout's hold, a
  // merchant's balance, an operator's setting) and are fetched at once. The events only need
  // booking, so their fetch waits for more (LEDGER_EVENTS_FETCH_WAIT_MS), and a partition's batch,
  // booked in one transaction, holds more of them.
  const [commands, events] = await listenWithKafkaConsumers(
    app,
    [
      {
        kafka,
        groupId: config.consumerGroup,
        stallMs,
        topics: [Topics.ledgerCommands, ...serviceCommandTopics('ledger')],
        // The backoffice's: operators' settings on ledger.ops-commands (decision 303).
        replyTopics: [ReplyTopics.payouts, ReplyTopics.orders, ReplyTopics.gateway, ReplyTopics.backoffice],
      },
      {
        kafka,
        groupId: config.eventsConsumerGroup,
        name: 'events',
        stallMs,
        // P2P fees on p2p.events (decision 312).
        topics: [Topics.ordersEvents, Topics.payoutsEvents, Topics.p2pEvents],
        replyTopics: [],
        // Half of what one partition may answer: a partition with a backlog fills it, so a backlog
        // is read without waiting. 0 keeps the default fetch: a wait of 0 would make an idle
        // consumer ask the broker without pause.
        fetch:
          config.eventsFetchWaitMs > 0
            ? { maxWaitTimeInMs: config.eventsFetchWaitMs, minBytes: CONSUMER_FETCH_LIMITS.maxBytesPerPartition / 2 }
            : undefined,
      },
    ],
    httpPort,
    host,
  );
  return { app, transports: { commands, events }, port: boundPort(app), close: () => app.close() };
}
