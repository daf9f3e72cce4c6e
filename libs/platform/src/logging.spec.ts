import { Logger } from '@nestjs/common';
import { Writable } from 'node:stream';
import { createLogger } from './logging';
import { EnvReader, readLogConfig } from './config';

/** The JSON lines a logger wrote, parsed. */
function jsonSink(): { out: Writable & { write(chunk: string): boolean }; lines(): Record<string, unknown>[] } {
  const chunks: string[] = [];
  const out = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return {
    out: out as never,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
  };
}

describe('LOG_LEVEL and LOG_FORMAT', () => {
  it.each([
    [{}, { logLevel: 'info', logFormat: 'pretty' }],
    [
      { LOG_LEVEL: 'warn', LOG_FORMAT: 'json' },
      { logLevel: 'warn', logFormat: 'json' },
    ],
    [{ LOG_LEVEL: 'silent' }, { logLevel: 'silent', logFormat: 'pretty' }],
  ])('when the environment has %j, then the log settings are %j', (vars, expected) => {
    const env = new EnvReader(vars);
    expect(readLogConfig(env)).toEqual(expected);
    env.done('test');
  });

  it('when LOG_LEVEL names no level, then the app refuses to start, naming the variable and the levels', () => {
    const env = new EnvReader({ LOG_LEVEL: 'verbose' });
    readLogConfig(env);
    expect(() => env.done('test')).toThrow(/LOG_LEVEL must be one of debug, info, warn, error, silent, got "verbose"/);
  });
});

describe('the JSON logger (LOG_FORMAT=json)', () => {
  it('when a class logs through Nest, then the line is one JSON object with level, service, context and message', () => {
    const sink = jsonSink();
    const logger = createLogger('orders', { logFormat: 'json', logLevel: 'info' }, sink.out);
    logger.log('relay started', 'OutboxRelay');
    logger.error('delivery failed', 'Error: boom\n    at deliver (x.ts:1:1)', 'DeliveryWorker');
    expect(sink.lines()).toEqual([
      expect.objectContaining({ level: 'info', service: 'orders', context: 'OutboxRelay', msg: 'relay started' }),
      expect.objectContaining({
        level: 'error',
        service: 'orders',
        context: 'DeliveryWorker',
        stack: 'Error: boom\n    at deliver (x.ts:1:1)',
        msg: 'delivery failed',
      }),
    ]);
    expect(typeof sink.lines()[0].time).toBe('string');
  });

  it.each([
    ['warn', ['warn', 'error']],
    ['error', ['error']],
    ['silent', []],
    ['debug', ['debug', 'info', 'warn', 'error']],
  ] as const)('when LOG_LEVEL is %s, then only %j lines are written', (logLevel, levels) => {
    const sink = jsonSink();
    const logger = createLogger('gateway', { logFormat: 'json', logLevel }, sink.out);
    logger.debug?.('d', 'X');
    logger.log('i', 'X');
    logger.warn('w', 'X');
    logger.error('e', 'X');
    expect(sink.lines().map((l) => l.level)).toEqual(levels);
  });

  it('when an object with a card number, a key or a secret is logged, then their values are redacted', () => {
    const sink = jsonSink();
    const logger = createLogger('p2p', { logFormat: 'json', logLevel: 'info' }, sink.out);
    logger.log({ msg: 'sent', sender: { cardNumber: '4111111111111111' }, apiKey: 'sk_live_x', secret: 's3cret' });
    const text = JSON.stringify(sink.lines());
    expect(text).not.toMatch(/4111111111111111|sk_live_x|s3cret/);
    expect(sink.lines()[0]).toMatchObject({ msg: 'sent', sender: { cardNumber: '[redacted]' } });
  });
});

describe('the readable logger (LOG_FORMAT=pretty)', () => {
  afterEach(() => jest.restoreAllMocks());

  it("when LOG_LEVEL is warn, then Nest's start-up lines are not printed and warnings are", () => {
    const written: string[] = [];
    jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => written.push(String(chunk)) > 0);
    jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => written.push(String(chunk)) > 0);
    Logger.overrideLogger(createLogger('methods', { logFormat: 'pretty', logLevel: 'warn' }));
    new Logger('RoutesResolver').log('Mapped {/health, GET} route');
    new Logger('KafkaTransport').warn('consumer rebalancing');
    expect(written.join('')).not.toContain('Mapped');
    expect(written.join('')).toContain('consumer rebalancing');
  });
});
