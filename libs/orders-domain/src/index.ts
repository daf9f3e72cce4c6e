export * from './order-status';
export * from './fold-provider-event';
