import { ConsoleLogger, LogLevel } from '@nestjs/common';

/** Readable lines locally; one JSON object a line where LOG_FORMAT=json (for log shippers). */
export function createLogger(app: string, format: 'pretty' | 'json'): ConsoleLogger {
  const levels: LogLevel[] = ['log', 'warn', 'error', 'fatal'];
  return new ConsoleLogger(app, {
    json: format === 'json',
    logLevels: levels,
    prefix: app,
    colors: format === 'pretty' && process.stdout.isTTY,
  });
}

/** Shows the last four characters only: enough to tell keys and accounts apart in a log. */
export function mask(value: string | undefined | null): string {
  if (!value) return '';
  return value.length <= 4 ? '****' : `****${value.slice(-4)}`;
}
