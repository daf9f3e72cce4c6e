import { Partitioners, Producer } from 'kafkajs';
import { Client } from 'pg';
import { envelope, Envelope, OrderStatusChanged } from '@payments/contracts';
import { KafkaRequestClient } from '@payments/messaging';
import { EnvReader } from '@payments/platform';
import { createTestDatabase, createTestTopics, testBrokers, testKafka, uniqueName } from '@payments/testing';
import { LedgerConfig, loadLedgerConfig } from './config';
import { RunningLedger, startLedger } from './ledger.app';

type RequesterName = ConstructorParameters<typeof KafkaRequestClient>[1]['requester'];

/**
 * Two ledger instances in one consumer group against real Kafka and PostgreSQL, on a database and
 * topic prefix of their own, with what the component specs drive them with: a producer, a
 * requester of ledger commands and a client of the database.
 */
export interface TwoLedgers {
  prefix: string;
  db: { url: string; drop(): Promise<void> };
  pg: Client;
  producer: Producer;
  requester: KafkaRequestClient;
  ledgers: RunningLedger[];
  config(): LedgerConfig;
  stop(): Promise<void>;
}

export async function startTwoLedgers(o: {
  /** Names the topic prefix, the producer's client and the requester's instance. */
  name: string;
  /** Who asks the ledger (the gateway, payouts…): names the requester's reply topic. */
  requester: RequesterName;
  /** The ledger's settings beside the database, the broker and the log level. */
  env: Record<string, string>;
}): Promise<TwoLedgers> {
  const prefix = `${uniqueName(o.name)}.`;
  const db = await createTestDatabase();
  const topics = await createTestTopics(prefix);
  const config = () =>
    loadLedgerConfig(
      new EnvReader({
        DATABASE_URL: db.url,
        KAFKA_BROKERS: testBrokers().join(','),
        KAFKA_TOPIC_PREFIX: prefix,
        INSTANCE_ID: uniqueName('l'),
        // A dead-letter test's ERROR line is the behaviour under test: silent unless TEST_LOG_LEVEL asks.
        LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
        ...o.env,
      }),
    );
  const producer = testKafka(`${o.name}-spec`).producer({ createPartitioner: Partitioners.DefaultPartitioner });
  const ledgers: RunningLedger[] = [];
  const pg = new Client({ connectionString: db.url });
  const requester = new KafkaRequestClient(
    config().kafka,
    { requester: o.requester, instanceId: uniqueName(o.name) },
    15_000,
  );
  const stop = async () => {
    await requester.stop();
    await Promise.all(ledgers.map((l) => l.close()));
    await pg.end().catch(() => undefined);
    await producer.disconnect();
    await topics.deleteAll();
    await db.drop();
  };
  try {
    await producer.connect();
    ledgers.push(await startLedger(config(), 0), await startLedger(config(), 0));
    await Promise.all(ledgers.flatMap((l) => [l.transports.commands.whenJoined(), l.transports.events.whenJoined()]));
    await pg.connect();
    await requester.start();
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
  return { prefix, db, pg, producer, requester, ledgers, config, stop };
}

/** An order's status change as the orders service publishes it: by default a completion of 100.00 USD by card through the sandbox. */
export const orderStatusChange = (shopId: string, orderId: string, over: Partial<OrderStatusChanged> = {}): Envelope =>
  envelope({
    type: 'order.status_changed',
    occurredAt: new Date(),
    payload: {
      orderId,
      shopId,
      merchantOrderId: `m-${orderId.slice(0, 8)}`,
      sequence: 3,
      status: 'completed',
      previousStatus: 'in_progress',
      cost: { amount: '100.00', currency: 'USD' },
      provider: 'sandbox',
      method: 'card',
      ...over,
    } satisfies OrderStatusChanged,
  });
