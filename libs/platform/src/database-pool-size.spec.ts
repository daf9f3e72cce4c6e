import { defaultPoolSize } from './database';

describe('the default size of a service database pool', () => {
  it('when DATABASE_POOL_MAX is not set, then a pool may open 10 connections', () => {
    expect(defaultPoolSize({})).toBe(10);
    expect(defaultPoolSize({ DATABASE_POOL_MAX: '' })).toBe(10);
  });

  it('when DATABASE_POOL_MAX is set, then it is the size', () => {
    expect(defaultPoolSize({ DATABASE_POOL_MAX: '4' })).toBe(4);
  });

  it.each(['0', '101', '2.5', 'ten'])('when DATABASE_POOL_MAX is %s, then start-up fails naming it', (raw) => {
    expect(() => defaultPoolSize({ DATABASE_POOL_MAX: raw })).toThrow(
      /DATABASE_POOL_MAX must be an integer from 1 to 100/,
    );
  });
});
