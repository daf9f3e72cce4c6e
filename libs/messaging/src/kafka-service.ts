import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { HealthRegistry, installProblemHandling } from '@payments/platform';
import type { HealthComponent } from '@payments/platform';
import { KafkaTransport, KafkaTransportOptions } from './kafka-transport';
import { RethrowRpcErrors } from './rethrow-rpc.filter';

/**
 * Starts a service that consumes Kafka: HTTP problem handling, the Kafka consumers (errors reach
 * the transport, which retries or dead-letters), the HTTP listener, and returns once the consumer
 * group has been joined, so that a caller's first message is not missed. The transport's consumer
 * and producers join the app's health (/health/ready, /health/live).
 */
export async function listenWithKafka(
  app: NestFastifyApplication,
  consume: KafkaTransportOptions,
  httpPort: number,
  host: string,
): Promise<KafkaTransport> {
  const [transport] = await listenWithKafkaConsumers(app, [consume], httpPort, host);
  return transport;
}

/**
 * As listenWithKafka, with several consumers in one service: each its own group, topics and fetch
 * (the ledger's commands, answered at once, and its events, booked in larger batches; decision
 * 352). Each consumer's health components need a name of their own (KafkaTransportOptions.name).
 */
export async function listenWithKafkaConsumers(
  app: NestFastifyApplication,
  consumes: KafkaTransportOptions[],
  httpPort: number,
  host: string,
): Promise<KafkaTransport[]> {
  installProblemHandling(app);
  const transports = consumes.map((consume) => {
    const transport = new KafkaTransport(consume);
    registerHealth(app, transport.healthComponents());
    const microservice = app.connectMicroservice(
      { strategy: transport },
      { inheritAppConfig: false, deferInitialization: true },
    );
    microservice.useGlobalFilters(new RethrowRpcErrors());
    return transport;
  });
  await app.startAllMicroservices();
  await app.listen(httpPort, host);
  await Promise.all(transports.map((t) => t.whenJoined()));
  return transports;
}

/** Adds Kafka clients' components to the app's health; apps without the HealthModule are left alone. */
export function registerHealth(
  app: { get(token: unknown, options?: { strict: boolean }): unknown },
  components: HealthComponent[],
): void {
  let registry: HealthRegistry | undefined;
  try {
    registry = app.get(HealthRegistry, { strict: false }) as HealthRegistry;
  } catch {
    return;
  }
  for (const c of components) registry.register(c);
}
