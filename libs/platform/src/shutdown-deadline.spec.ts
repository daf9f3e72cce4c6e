import { EventEmitter } from 'node:events';
import { installShutdownDeadline } from './shutdown-deadline';

describe('the shutdown deadline: a stopping service that hangs is ended', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('when SIGTERM came and the hooks have not finished by the deadline, then the process exits 1 and says why', () => {
    const proc = new EventEmitter();
    const exit = jest.fn();
    const lines: string[] = [];
    installShutdownDeadline(1000, proc as never, exit, (l) => lines.push(l));
    proc.emit('SIGTERM');
    jest.advanceTimersByTime(999);
    expect(exit).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(exit).toHaveBeenCalledWith(1);
    expect(lines).toEqual(['shutdown after SIGTERM did not finish within 1000 ms: exiting']);
  });

  it('when no signal came, then nothing happens however long it runs', () => {
    const proc = new EventEmitter();
    const exit = jest.fn();
    installShutdownDeadline(1000, proc as never, exit, () => undefined);
    jest.advanceTimersByTime(60_000);
    expect(exit).not.toHaveBeenCalled();
  });
});
