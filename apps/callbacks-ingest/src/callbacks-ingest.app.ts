import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Topics } from '@payments/contracts';
import { KafkaTransport, OutboxRelayService, OutboxRelayServiceOptions, RethrowRpcErrors } from '@payments/messaging';
import { SwaggerModule } from '@nestjs/swagger';
import {
  boundPort,
  createHttpApp,
  createLogger,
  installProblemHandling,
  serviceOpenApiDocument,
} from '@payments/platform';
import { PROVIDER_SIGNATURE, providerSignatureScheme } from './receive-callback/receive-callback.openapi';
import { CallbacksIngestConfig } from './config';
import { CallbacksIngestModule } from './callbacks-ingest.module';
import { letPaymeParseItsBody } from './payme/payme-body-parser';
import { PAYME_BASIC, paymeBasicScheme } from './payme/payme.openapi';

export interface RunningCallbacksIngest {
  app: NestFastifyApplication;
  relay: OutboxRelayService;
  /** The consumer of `shops.settings`: shops' Click and Payme accounts (decision 341). */
  transport: KafkaTransport;
  port: number;
  url: string;
  close(): Promise<void>;
}

export async function startCallbacksIngest(
  config: CallbacksIngestConfig,
  httpPort: number,
  host = '127.0.0.1',
  relay: Partial<OutboxRelayServiceOptions> = {},
): Promise<RunningCallbacksIngest> {
  const app = await createHttpApp(CallbacksIngestModule.register(config, relay), {
    logger: createLogger('callbacks-ingest', config),
    bodyLimitBytes: 256 * 1024,
    metricsEnabled: config.metricsEnabled,
    // Click posts its Prepare and Complete as forms; every other path takes JSON only.
    forms: (url) => url.startsWith('/callbacks/click/'),
  });
  installProblemHandling(app);
  // Its own document (decision 92): providers call this service, not the gateway, on another host.
  const document = serviceOpenApiDocument(app, {
    title: 'Provider callbacks API',
    description:
      'Where payment providers send their signed callbacks, and where Click (SHOP-API) and Payme (Merchant API) ask us ' +
      'and wait: those answer in their own protocol, HTTP 200. Every other error is an RFC 9457 problem (application/problem+json).',
    securitySchemes: { [PROVIDER_SIGNATURE]: { ...providerSignatureScheme }, [PAYME_BASIC]: { ...paymeBasicScheme } },
  });
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs/openapi.json' });
  // shops.settings, for the shops' Click and Payme accounts (decision 341). Not part of readiness,
  // like the outbox relay: the accounts already stored answer while the broker is away.
  const transport = new KafkaTransport({
    kafka: config.kafka,
    groupId: config.consumerGroup,
    stallMs: config.health.stallMs,
    topics: [Topics.shopsSettings],
  });
  const consumer = app.connectMicroservice(
    { strategy: transport },
    { inheritAppConfig: false, deferInitialization: true },
  );
  consumer.useGlobalFilters(new RethrowRpcErrors());
  await app.init();
  letPaymeParseItsBody(app);
  await app.startAllMicroservices();
  await app.listen(httpPort, host);
  const port = boundPort(app);
  return {
    app,
    relay: app.get(OutboxRelayService),
    transport,
    port,
    url: `http://127.0.0.1:${port}`,
    close: () => app.close(),
  };
}
