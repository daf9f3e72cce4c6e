// jest's default reporter, less the console output of test files that passed: a green run shows
// one line a file and the totals; a failing file still shows everything it printed, to debug it.
const { DefaultReporter } = require('@jest/reporters');

class QuietReporter extends DefaultReporter {
  printTestFileHeader(testPath, config, result) {
    const passed = result.numFailingTests === 0 && !result.testExecError && !result.failureMessage;
    super.printTestFileHeader(testPath, config, passed ? { ...result, console: undefined } : result);
  }
}

module.exports = QuietReporter;
