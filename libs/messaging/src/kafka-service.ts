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
  const transport = new KafkaTransport(consume);
  registerHealth(app, transport.healthComponents());
  installProblemHandling(app);
  const microservice = app.connectMicroservice(
    { strategy: transport },
    { inheritAppConfig: false, deferInitialization: true },
  );
  microservice.useGlobalFilters(new RethrowRpcErrors());
  await app.startAllMicroservices();
  await app.listen(httpPort, host);
  await transport.whenJoined();
  return transport;
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
