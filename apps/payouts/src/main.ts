import 'reflect-metadata';
import { EnvReader } from '@payments/platform';
import { loadPayoutsConfig } from './config';
import { startPayouts } from './payouts.app';

async function main(): Promise<void> {
  const env = new EnvReader();
  const port = env.int('PAYOUTS_HTTP_PORT', 3040, { min: 0, max: 65535 });
  const host = env.string('HTTP_HOST', '127.0.0.1');
  const config = loadPayoutsConfig(env);
  const running = await startPayouts(config, port, {}, host);
  running.app.enableShutdownHooks();
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
