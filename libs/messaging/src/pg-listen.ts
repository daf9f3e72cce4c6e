import { LoggerService } from '@nestjs/common';
import { Client } from 'pg';

/**
 * A dedicated connection LISTENing on a channel, so a worker wakes the moment a transaction that
 * queued work commits. Answers undefined when it cannot listen: the worker then polls, and tries
 * again later. `onLost` runs when the connection drops.
 */
export async function listenToChannel(
  databaseUrl: string,
  channel: string,
  handlers: { onNotify: () => void; onLost: () => void },
  logger: LoggerService,
): Promise<Client | undefined> {
  const client = new Client({ connectionString: databaseUrl });
  client.on('notification', handlers.onNotify);
  client.on('error', (err) => {
    logger.warn(`LISTEN ${channel}: connection lost (${err.message}); polling until it is back`);
    handlers.onLost();
  });
  try {
    await client.connect();
    await client.query(`LISTEN "${channel}"`);
    return client;
  } catch (err) {
    await client.end().catch(() => undefined);
    logger.warn(`cannot LISTEN ${channel} (${(err as Error).message}); polling only`);
    return undefined;
  }
}
