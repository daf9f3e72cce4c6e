export * from './transfer-codes';
export * from './fold-transfer-event';
export * from './send-outcome';
export * from './mask';
export * from './operator-resolution';
