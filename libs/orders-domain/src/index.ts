export * from './order-status';
export * from './fold-provider-event';
export * from './need-action';
export * from './processing-timeout';
export * from './operator-actions';
export * from './refund';
export * from './routing';
