import 'reflect-metadata';
import { EnvReader } from '@payments/platform';
import { loadCheckoutConfig } from './config';
import { startCheckout } from './checkout.app';

async function main(): Promise<void> {
  const env = new EnvReader();
  const port = env.int('CHECKOUT_HTTP_PORT', 3060, { min: 0, max: 65535 });
  const host = env.string('HTTP_HOST', '127.0.0.1');
  const config = loadCheckoutConfig(env);
  const running = await startCheckout(config, port, host);
  running.app.enableShutdownHooks();
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
