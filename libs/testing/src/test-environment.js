// jest's node environment, keeping the services' log lines out of a green run (decision 346).
// The services a test starts in its own process (tests/support/stack.ts, the component specs) log
// through Nest's console logger straight to process.stdout / process.stderr: jest's console capture
// never sees those lines, and the quiet reporter could not hold them back. Here each line a logger
// writes is kept for the test that is running: in .run/test-logs/<spec path>.log always, and on the
// console — where the reporter shows it with the failure — only when that test fails.
// What a test writes itself (a summary it prints on purpose) still goes out as it is.
// TEST_LOGS=live lets the log lines through as they are written, as before.
const { TestEnvironment } = require('jest-environment-node');
const { appendFileSync, mkdirSync, rmSync, writeFileSync } = require('node:fs');
const path = require('node:path');

/**
 * A write whose caller is Nest's console logger (every service's LOG_FORMAT=pretty line, and the
 * lines of classes that log with no app around them, as the outbox relay's spec harness).
 */
const LOGGER_FRAME = /[\\/]node_modules[\\/]@nestjs[\\/]common[\\/]services[\\/]console-logger/;

function fromLogger() {
  const holder = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 20;
  Error.captureStackTrace(holder, fromLogger);
  Error.stackTraceLimit = limit;
  return LOGGER_FRAME.test(holder.stack ?? '');
}

/** A test's name as jest prints it: its describe blocks and its own, outermost first. */
function fullName(test) {
  const names = [];
  for (let block = test; block && block.name !== 'ROOT_DESCRIBE_BLOCK'; block = block.parent) names.unshift(block.name);
  return names.join(' › ');
}

/** Escape codes (a terminal's colours) out of a line kept in a file. */
// eslint-disable-next-line no-control-regex
const plain = (text) => text.replace(/\x1b\[[0-9;]*m/g, '');

class QuietLogsEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    const { rootDir } = config.projectConfig;
    const spec = path.relative(rootDir, context.testPath);
    /** Every log line of this file, under the name of the test that wrote it. */
    this.logFile = path.join(rootDir, '.run', 'test-logs', `${spec}.log`);
    /** What loggers wrote since the last test ended (a beforeAll's lines go with the first test). */
    this.pending = [];
    this.live = process.env.TEST_LOGS === 'live';
    if (this.live) return;
    // Written at the first line: a file that logs nothing leaves none (nor one of an earlier run).
    rmSync(this.logFile, { force: true });
    this.heading = `service logs of ${spec}\n`;
    const sandboxProcess = this.global.process;
    for (const name of ['stdout', 'stderr']) {
      const stream = process[name];
      const write = (chunk, encoding, callback) => {
        if (!fromLogger()) return stream.write(chunk, encoding, callback);
        this.pending.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
        const done = typeof encoding === 'function' ? encoding : callback;
        if (typeof done === 'function') process.nextTick(done);
        return true;
      };
      // The sandbox's stream only: jest's reporters write to the real one. What a test sets on it
      // (jest.spyOn(process.stdout, 'write')) stays on it, over this write, until taken off again.
      const own = new Map();
      const held = new Proxy(stream, {
        get: (target, key) => {
          if (own.has(key)) return own.get(key);
          if (key === 'write') return write;
          const value = Reflect.get(target, key, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
        set: (_target, key, value) => own.set(key, value) !== undefined,
        deleteProperty: (_target, key) => own.delete(key) || true,
        getOwnPropertyDescriptor: (target, key) =>
          own.has(key) || key === 'write'
            ? { value: own.has(key) ? own.get(key) : write, writable: true, enumerable: true, configurable: true }
            : Reflect.getOwnPropertyDescriptor(target, key),
      });
      Object.defineProperty(sandboxProcess, name, { configurable: true, enumerable: true, get: () => held });
    }
  }

  /** Files the lines so far under `heading`; on a failure also hands them to the test's console. */
  flush(heading, failed) {
    const lines = this.pending.join('');
    this.pending = [];
    if (!lines) return;
    if (this.heading) {
      mkdirSync(path.dirname(this.logFile), { recursive: true });
      writeFileSync(this.logFile, this.heading);
      this.heading = undefined;
    }
    appendFileSync(this.logFile, `\n── ${heading}${failed ? ' (FAILED)' : ''}\n${plain(lines)}`);
    if (failed) {
      const where = path.relative(process.cwd(), this.logFile);
      this.global.console.log(`service logs of ${heading} (every test's are in ${where}):\n${lines}`);
    }
  }

  async teardown() {
    // A line logged after the last hook (a consumer stopping late) is kept in the file.
    if (!this.live) this.flush('after the last test', false);
    await super.teardown();
  }

  async handleTestEvent(event, state) {
    if (this.live) return;
    if (event.name === 'test_done') this.flush(fullName(event.test), event.test.errors.length > 0);
    else if (event.name === 'run_finish') {
      const failed = state.unhandledErrors.length > 0 || this.hookFailed === true;
      this.flush('after the last test', failed);
    } else if (event.name === 'hook_failure') this.hookFailed = true;
  }
}

module.exports = QuietLogsEnvironment;
