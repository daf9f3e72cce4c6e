import { CommonConfig, EnvReader, readCommonConfig } from '@payments/platform';

export interface OrdersConfig extends CommonConfig {
  schema: string;
  consumerGroup: string;
}

export function loadOrdersConfig(env = new EnvReader()): OrdersConfig {
  const config: OrdersConfig = {
    ...readCommonConfig(env, 'orders'),
    schema: env.string('ORDERS_DB_SCHEMA', 'orders'),
    consumerGroup: env.string('ORDERS_CONSUMER_GROUP', 'orders'),
  };
  env.done('orders');
  return config;
}

export const ORDERS_CONFIG = Symbol('ORDERS_CONFIG');
