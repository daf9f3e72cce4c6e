// Run by test-environment.spec.ts in a jest of its own; not a spec, so `npm test` leaves it out.
// One test passes and one fails, each after a service-style log line; one prints a summary itself.
const { ConsoleLogger } = require('@nestjs/common');

const logger = new ConsoleLogger('fixture-service', { colors: false });

it('passes', () => {
  logger.warn('line of the passing test');
});

it('fails', () => {
  logger.error('line of the failing test');
  expect(1).toBe(2);
});

it('prints a summary', () => {
  process.stdout.write('summary the test prints on purpose\n');
});
