import { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  boundPort,
  createHttpApp,
  createLogger,
  installProblemHandling,
  strictValidationPipe,
} from '@payments/platform';
import { SandboxConfig } from './config';
import { SandboxModule } from './sandbox.module';

export interface RunningSandbox {
  app: NestFastifyApplication;
  port: number;
  url: string;
  close(): Promise<void>;
}

export async function startSandbox(
  config: SandboxConfig,
  httpPort: number,
  host = '127.0.0.1',
): Promise<RunningSandbox> {
  const app = await createHttpApp(SandboxModule.register(config), {
    logger: createLogger('provider-sandbox', config),
    metricsEnabled: config.metricsEnabled,
    // The page that plays the bank app (GET /app/pay/{paymentId}) posts its approve/decline form.
    forms: true,
  });
  installProblemHandling(app);
  app.useGlobalPipes(strictValidationPipe());
  await app.listen(httpPort, host);
  const port = boundPort(app);
  return { app, port, url: `http://127.0.0.1:${port}`, close: () => app.close() };
}
