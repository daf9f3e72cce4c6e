import { ConsoleLogger, LoggerService, LogLevel } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import { hostname } from 'node:os';
import pino, { Level, Logger as Pino } from 'pino';
import type { LogConfig, LogFormat, LogLevelName } from './config';

/** Nest's levels shown at each LOG_LEVEL (Nest's `log` is `info`; `verbose` is never shown). */
const NEST_LEVELS: Record<LogLevelName, LogLevel[]> = {
  debug: ['debug', 'log', 'warn', 'error', 'fatal'],
  info: ['log', 'warn', 'error', 'fatal'],
  warn: ['warn', 'error', 'fatal'],
  error: ['error', 'fatal'],
  silent: [],
};

/**
 * Field names whose values never reach a log, wherever a caller puts an object: card numbers,
 * keys, secrets and tokens (the services already log masked values only; this is the net under it).
 */
const REDACTED = ['cardNumber', 'pan', 'apiKey', 'secret', 'callbackSecret', 'token', 'password', 'authorization'];
const REDACT_PATHS = [...REDACTED, ...REDACTED.map((k) => `*.${k}`)];

/**
 * The logger of one service, at its LOG_LEVEL: readable lines (Nest's console logger) by default,
 * one JSON object a line through pino where LOG_FORMAT=json. Passing only a format (the older call)
 * logs at `info`.
 */
export function createLogger(
  app: string,
  settings: LogConfig | LogFormat,
  /** Where JSON lines go: stdout, synchronously (a fatal error's line is out before the process exits). */
  jsonOut?: pino.DestinationStream,
): LoggerService {
  const { logFormat, logLevel } =
    typeof settings === 'string' ? { logFormat: settings, logLevel: 'info' as const } : settings;
  if (logFormat === 'json')
    return new PinoNestLogger(createPino(app, logLevel, jsonOut ?? pino.destination({ dest: 1, sync: true })));
  return new ConsoleLogger(app, {
    logLevels: NEST_LEVELS[logLevel],
    prefix: app,
    // Escape codes only on a terminal: `npm start` writes the lines to .run/logs files.
    colors: process.stdout.isTTY === true,
  });
}

function createPino(app: string, level: LogLevelName, out: pino.DestinationStream): Pino {
  return pino(
    {
      level,
      base: { service: app, pid: process.pid, hostname: hostname() },
      timestamp: pino.stdTimeFunctions.isoTime,
      // `"level":"warn"` rather than pino's numbers: what people grep for and shippers map.
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    },
    out,
  );
}

/** A stack trace as Nest passes it to `error(message, stack, context)`. */
const STACK = /\n\s+at /;

/**
 * Nest's LoggerService over pino. Nest calls `log(message, ...params, context)` and
 * `error(message, stack?, context)`; the context (the class that logs) becomes a field.
 */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly pino: Pino) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }

  private write(level: Level, message: unknown, params: unknown[]): void {
    if (!this.pino.isLevelEnabled(level)) return;
    const fields: Record<string, unknown> = {};
    const rest = [...params];
    const last = rest[rest.length - 1];
    if (typeof last === 'string' && !STACK.test(last)) fields.context = rest.pop();
    if (typeof rest[0] === 'string' && STACK.test(rest[0])) fields.stack = rest.shift();
    if (rest.length > 0) fields.params = rest;
    if (message instanceof Error) {
      this.pino[level]({ ...fields, err: message }, message.message);
    } else if (typeof message === 'object' && message !== null) {
      this.pino[level]({ ...fields, ...message });
    } else {
      this.pino[level](fields, String(message));
    }
  }
}

/** The logger of the service whose code is running: the async context its app was created in. */
const serviceLogger = new AsyncLocalStorage<LoggerService>();
/**
 * Only a jest worker runs several apps in one process. Entering an AsyncLocalStorage makes Node 20
 * track every promise (async_hooks), a cost a service's own process, where the app created last is
 * the only one, need not pay (docs/performance.md, "Issue 30: the card flow before and after").
 */
const SEVERAL_APPS_PER_PROCESS = process.env.JEST_WORKER_ID !== undefined;
/** The logger of the app created last: for code that runs outside every app's context. */
let latest: LoggerService = new ConsoleLogger();

/**
 * Nest keeps one logger per process: every `new Logger(Context)` writes through the logger of the
 * app created last. Several apps in one process (a test stack starts every service in its jest
 * worker) would all log under that one's name. This logger is the one Nest keeps: it writes
 * through `own`, the logger of the app whose code is running — the async context that app was
 * created in (its start-up, its timers, consumers and requests all descend from it) — and elsewhere
 * through the logger of the app created last, as Nest did. Call it where the app is created, before
 * anything is awaited: from there on, this async context belongs to that app.
 */
export function perAppLogger(own: LoggerService): LoggerService {
  if (SEVERAL_APPS_PER_PROCESS) serviceLogger.enterWith(own);
  latest = own;
  return ROUTER;
}

const current = (): LoggerService => serviceLogger.getStore() ?? latest;
const ROUTER: LoggerService = {
  log: (message: unknown, ...params: unknown[]) => current().log(message, ...params),
  warn: (message: unknown, ...params: unknown[]) => current().warn(message, ...params),
  error: (message: unknown, ...params: unknown[]) => current().error(message, ...params),
  fatal: (message: unknown, ...params: unknown[]) => current().fatal?.(message, ...params),
  debug: (message: unknown, ...params: unknown[]) => current().debug?.(message, ...params),
  verbose: (message: unknown, ...params: unknown[]) => current().verbose?.(message, ...params),
  setLogLevels: (levels: LogLevel[]) => current().setLogLevels?.(levels),
};

/** Shows the last four characters only: enough to tell keys and accounts apart in a log. */
export function mask(value: string | undefined | null): string {
  if (!value) return '';
  return value.length <= 4 ? '****' : `****${value.slice(-4)}`;
}
