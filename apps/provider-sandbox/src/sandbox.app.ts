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
  // A test double closes at once: a client connection kept alive after a timed-out request (the
  // slow scenario) otherwise held the server open for Fastify's 72 s keep-alive timeout.
  const close = async (): Promise<void> => {
    const server = app.getHttpServer() as import('node:http').Server;
    const closing = app.close();
    setTimeout(() => server.closeAllConnections(), 200).unref();
    await closing;
  };
  return { app, port, url: `http://127.0.0.1:${port}`, close };
}
