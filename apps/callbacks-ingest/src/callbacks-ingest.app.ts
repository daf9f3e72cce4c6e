import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { OutboxRelayService, OutboxRelayServiceOptions } from '@payments/messaging';
import { boundPort, createHttpApp, createLogger, installProblemHandling } from '@payments/platform';
import { CallbacksIngestConfig } from './config';
import { CallbacksIngestModule } from './callbacks-ingest.module';

export interface RunningCallbacksIngest {
  app: NestFastifyApplication;
  relay: OutboxRelayService;
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
  });
  installProblemHandling(app);
  await app.listen(httpPort, host);
  const port = boundPort(app);
  return { app, relay: app.get(OutboxRelayService), port, url: `http://127.0.0.1:${port}`, close: () => app.close() };
}
