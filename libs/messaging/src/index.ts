export * from './kafka';
export * from './outbox';
export * from './outbox-relay';
export * from './inbox';
export * from './kafka-transport';
export * from './request-client';
export * from './rethrow-rpc.filter';
export * from './outbox-relay.service';
