export * from './order-status';
export * from './fold-provider-event';
export * from './processing-timeout';
export * from './operator-actions';
export * from './refund';
