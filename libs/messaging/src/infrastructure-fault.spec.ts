import { QueryFailedError } from 'typeorm';
import { KafkaJSConnectionError, KafkaJSNumberOfRetriesExceeded } from 'kafkajs';
import { ContractViolation } from '@payments/contracts';
import { isInfrastructureFault } from '@payments/platform';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });
const pgError = (message: string, code: string) => new QueryFailedError('SELECT 1', [], withCode(message, code));

describe('isInfrastructureFault', () => {
  it.each([
    ['a refused connection to PostgreSQL', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['a connection reset', withCode('read ECONNRESET', 'ECONNRESET')],
    [
      'PostgreSQL stopped by an administrator (57P01)',
      pgError('terminating connection due to administrator command', '57P01'),
    ],
    [
      'PostgreSQL restarting after a crash (57P02)',
      pgError('terminating connection because of crash of another server process', '57P02'),
    ],
    ['PostgreSQL still starting up (57P03)', withCode('the database system is starting up', '57P03')],
    ['a connection exception (08006)', pgError('connection failure', '08006')],
    ['a deadlock PostgreSQL broke by rolling back (40P01)', pgError('deadlock detected', '40P01')],
    ['a serialization conflict (40001)', pgError('could not serialize access due to concurrent update', '40001')],
    ['a connection pg saw die', new Error('Connection terminated unexpectedly')],
    ['a pool that could not connect in time', new Error('timeout exceeded when trying to connect')],
    [
      'a broker that cannot be reached',
      new KafkaJSConnectionError('Connection error: connect ECONNREFUSED 127.0.0.1:9092'),
    ],
    [
      'kafkajs giving up on an unreachable broker',
      new KafkaJSNumberOfRetriesExceeded(new KafkaJSConnectionError('Connection timeout'), {
        retryCount: 5,
        retryTime: 5000,
      }),
    ],
  ])('when the error is %s, then it is an infrastructure fault', (_, err) => {
    expect(isInfrastructureFault(err)).toBe(true);
  });

  it.each([
    ['a bug in the handler', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['a unique violation (23505)', pgError('duplicate key value violates unique constraint', '23505')],
    ['a contract violation', new ContractViolation('payload.amount is not a decimal string')],
    ['a downstream HTTP 500', new Error('provider answered 500')],
    ['not an error at all', 'ECONNREFUSED'],
    ['undefined', undefined],
  ])('when the error is %s, then it is not', (_, err) => {
    expect(isInfrastructureFault(err)).toBe(false);
  });
});
