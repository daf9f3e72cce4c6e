import { CommonConfig, EnvReader, readCommonConfig } from '@payments/platform';

export interface MethodsConfig extends CommonConfig {
  schema: string;
  consumerGroup: string;
}

export function loadMethodsConfig(env = new EnvReader()): MethodsConfig {
  const config: MethodsConfig = {
    ...readCommonConfig(env, 'methods'),
    schema: env.string('METHODS_DB_SCHEMA', 'methods'),
    consumerGroup: env.string('METHODS_CONSUMER_GROUP', 'methods'),
  };
  env.done('methods');
  return config;
}
