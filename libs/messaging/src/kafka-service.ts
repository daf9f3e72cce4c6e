import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { installProblemHandling } from '@payments/platform';
import { KafkaTransport, KafkaTransportOptions } from './kafka-transport';
import { RethrowRpcErrors } from './rethrow-rpc.filter';

/**
 * Starts a service that consumes Kafka: HTTP problem handling, the Kafka consumers (errors reach
 * the transport, which retries or dead-letters), the HTTP listener, and returns once the consumer
 * group has been joined, so that a caller's first message is not missed.
 */
export async function listenWithKafka(
  app: NestFastifyApplication,
  consume: KafkaTransportOptions,
  httpPort: number,
  host: string,
): Promise<KafkaTransport> {
  const transport = new KafkaTransport(consume);
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
