import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { boundPort, createHttpApp, createLogger, installProblemHandling } from '@payments/platform';
import { CheckoutConfig } from './config';
import { CheckoutModule } from './checkout.module';

export interface RunningCheckout {
  app: NestFastifyApplication;
  port: number;
  url: string;
  close(): Promise<void>;
}

/** Starts the hosted pages on their own port: payers reach them, never the merchant API. */
export async function startCheckout(
  config: CheckoutConfig,
  httpPort: number,
  host = '127.0.0.1',
): Promise<RunningCheckout> {
  const app = await createHttpApp(CheckoutModule.register(config), {
    logger: createLogger('checkout', config),
    metricsEnabled: config.metricsEnabled,
    // A page's form is posted as a form: it works without JavaScript.
    forms: true,
    bodyLimitBytes: 8 * 1024,
  });
  // Errors the pages do not answer themselves (health's 503, a body too large, an unknown path)
  // leave as problem+json like every other app's, not as Nest's 500.
  installProblemHandling(app);
  await app.listen(httpPort, host);
  const port = boundPort(app);
  return { app, port, url: `http://127.0.0.1:${port}`, close: () => app.close() };
}
