import 'reflect-metadata';
import { DEFAULT_SHUTDOWN_TIMEOUT_MS, EnvReader, installShutdownDeadline } from '@payments/platform';
import { loadP2pConfig } from './config';
import { startP2p } from './p2p.app';

async function main(): Promise<void> {
  const env = new EnvReader();
  const port = env.int('P2P_HTTP_PORT', 3050, { min: 0, max: 65535 });
  const host = env.string('HTTP_HOST', '127.0.0.1');
  const config = loadP2pConfig(env);
  const running = await startP2p(config, port, {}, host);
  running.app.enableShutdownHooks();
  installShutdownDeadline(env.int('SHUTDOWN_TIMEOUT_MS', DEFAULT_SHUTDOWN_TIMEOUT_MS, { min: 1000, max: 600_000 }));
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
