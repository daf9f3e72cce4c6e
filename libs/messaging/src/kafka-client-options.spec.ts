import type { KafkaConfig } from '@payments/platform';
import { kafkaClientOptions } from './kafka';

const base: KafkaConfig = { brokers: ['b:9093'], clientId: 'orders', topicPrefix: '', replicationFactor: 1 };

describe('the kafkajs options of a service', () => {
  it('when no TLS or SASL is configured, then the client has neither', () => {
    const options = kafkaClientOptions(base);
    expect(options.ssl).toBeUndefined();
    expect(options.sasl).toBeUndefined();
  });

  it('when TLS with a CA and SCRAM are configured, then the client verifies the brokers against that CA and logs in', () => {
    const options = kafkaClientOptions({
      ...base,
      ssl: { ca: ['PEM'] },
      sasl: { mechanism: 'scram-sha-512', username: 'orders', password: 'p' },
    });
    expect(options.ssl).toEqual({ ca: ['PEM'], rejectUnauthorized: true });
    expect(options.sasl).toEqual({ mechanism: 'scram-sha-512', username: 'orders', password: 'p' });
  });

  it('when TLS without a CA is configured, then the system trust store is used', () => {
    expect(kafkaClientOptions({ ...base, ssl: {} }).ssl).toBe(true);
  });
});
