import { ConfigError, EnvReader, readCommonConfig } from './config';

const base = { DATABASE_URL: 'postgres://db/x', KAFKA_BROKERS: '127.0.0.1:9092' };

describe('the fault-suite failpoint in the common configuration', () => {
  it.each([
    [{}, undefined],
    [{ FAULTS_FAILPOINT: 'none' }, undefined],
    [{ FAULTS_FAILPOINT: 'outbox-after-publish' }, { name: 'outbox-after-publish', afterRows: 0 }],
    [
      { FAULTS_FAILPOINT: 'outbox-after-publish', FAULTS_FAILPOINT_AFTER_ROWS: '40' },
      { name: 'outbox-after-publish', afterRows: 40 },
    ],
  ])('when the environment has %j, then the failpoint is %j', (vars, expected) => {
    const env = new EnvReader({ ...base, ...vars });
    const config = readCommonConfig(env, 'test');
    env.done('test');
    expect(config.failpoint).toEqual(expected);
  });

  it('when FAULTS_FAILPOINT names no known failpoint, then the app refuses to start, naming the variable', () => {
    const env = new EnvReader({ ...base, FAULTS_FAILPOINT: 'outbox-before-publish' });
    readCommonConfig(env, 'test');
    expect(() => env.done('test')).toThrow(ConfigError);
    expect(() => env.done('test')).toThrow(/FAULTS_FAILPOINT must be one of none, outbox-after-publish/);
  });
});
