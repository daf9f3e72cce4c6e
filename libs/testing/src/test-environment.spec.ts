import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const FIXTURE = path.join(__dirname, 'test-environment.fixture.js');

/** The fixture run by a jest of its own, as `npm test` runs a file: console buffered, the quiet reporter. */
function runFixture(env: NodeJS.ProcessEnv = {}): { status: number | null; output: string } {
  const config = {
    rootDir: ROOT,
    testEnvironment: path.join(__dirname, 'test-environment.js'),
    testMatch: [FIXTURE],
    transform: {},
    reporters: [path.join(__dirname, 'quiet-reporter.js')],
  };
  const run = spawnSync(
    process.execPath,
    [require.resolve('jest/bin/jest'), '--config', JSON.stringify(config), '--verbose=false', '-i', '--ci'],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, TEST_LOGS: '', ...env } },
  );
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe("the services' log lines in a test run (decision 346)", () => {
  it("when one test passes and one fails, then only the failing test's log lines are printed, and a summary a test writes itself still is", () => {
    const { status, output } = runFixture();
    expect(status).toBe(1);
    expect(output).toContain('line of the failing test');
    expect(output).toContain("service logs of fails (every test's are in .run/test-logs/");
    expect(output).not.toContain('line of the passing test');
    expect(output).toContain('summary the test prints on purpose');
  });

  it("when the run is over, then every test's log lines are in .run/test-logs under its name", () => {
    runFixture();
    const file = readFileSync(path.join(ROOT, '.run/test-logs', `${path.relative(ROOT, FIXTURE)}.log`), 'utf8');
    expect(file).toMatch(/── passes\n.*WARN \[fixture-service\] line of the passing test/);
    expect(file).toMatch(/── fails \(FAILED\)\n.*ERROR \[fixture-service\] line of the failing test/);
    expect(file).not.toContain('summary the test prints on purpose');
  });

  it('when TEST_LOGS=live, then the log lines are printed as they are written, as before', () => {
    const { output } = runFixture({ TEST_LOGS: 'live' });
    expect(output).toContain('line of the passing test');
  });
});
