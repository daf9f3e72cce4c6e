import 'reflect-metadata';
import { DEFAULT_SHUTDOWN_TIMEOUT_MS, EnvReader, installShutdownDeadline } from '@payments/platform';
import { startBackoffice } from './backoffice.app';
import { loadBackofficeConfig } from './config';

async function main(): Promise<void> {
  const env = new EnvReader();
  const port = env.int('BACKOFFICE_HTTP_PORT', 3090, { min: 0, max: 65535 });
  const host = env.string('HTTP_HOST', '127.0.0.1');
  const config = loadBackofficeConfig(env);
  const running = await startBackoffice(config, port, host);
  running.app.enableShutdownHooks();
  installShutdownDeadline(env.int('SHUTDOWN_TIMEOUT_MS', DEFAULT_SHUTDOWN_TIMEOUT_MS, { min: 1000, max: 600_000 }));
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
